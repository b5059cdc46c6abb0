/** Marks krt's own collections and carries their internals; never exported from the package. */
export const INTERNAL: unique symbol = Symbol('krt.internal');
