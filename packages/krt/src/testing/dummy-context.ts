import type { HandlerContext } from '../core.ts';

/**
 * A context for calling a transformation directly in a unit test: fetches read normally and
 * record nothing. `discardResult` throws, since nothing would keep a previous result.
 */
export function dummyContext(name = 'test'): HandlerContext {
  return {
    collectionName: name,
    discardResult() {
      throw new Error(
        'discardResult() called on the dummy context: run the transformation in a collection to test it',
      );
    },
  };
}
