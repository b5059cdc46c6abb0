import { parseFieldSelector } from '../field-selector.ts';
import { parseLabelSelector } from '../label-selector.ts';
import type { KubeObject } from '../object.ts';
import type { UnionMember } from '../union-informer.ts';

/** A union member's scope, normalized, with a client-side test of whether an object is in it. */
export interface MemberScope {
  /** Identifies the scope among a union's members (equal scopes are one member). */
  readonly id: string;
  /** The scope as the caller gave it, empty strings dropped. */
  readonly member: UnionMember;
  /**
   * True when the object is certainly in the scope: its namespace and labels match, and the field
   * selector (if any) constrains only `metadata.name` and `metadata.namespace`. False when it is
   * not, or when that cannot be told here (other fields are the server's to evaluate).
   */
  certainlyContains(obj: KubeObject): boolean;
}

const CLIENT_FIELDS: Readonly<Record<string, (obj: KubeObject) => string>> = {
  'metadata.name': (obj) => obj.metadata?.name ?? '',
  'metadata.namespace': (obj) => obj.metadata?.namespace ?? '',
};

/**
 * Normalizes a member. Selectors are parsed (so an invalid one throws a `SelectorError` before
 * anything changes), but the id keeps the strings as given: they are the KubeClient's sharing key.
 */
export function memberScope(member: UnionMember): MemberScope {
  const namespace = member.namespace || undefined;
  const labelSelector = member.labelSelector || undefined;
  const fieldSelector = member.fieldSelector || undefined;
  const labels = labelSelector === undefined ? undefined : parseLabelSelector(labelSelector);
  const fields = fieldSelector === undefined ? undefined : parseFieldSelector(fieldSelector);
  const fieldsEvaluable = fields?.requirements.every((r) => r.field in CLIENT_FIELDS) ?? true;
  return {
    id: JSON.stringify([namespace ?? '', labelSelector ?? '', fieldSelector ?? '']),
    member: {
      ...(namespace === undefined ? {} : { namespace }),
      ...(labelSelector === undefined ? {} : { labelSelector }),
      ...(fieldSelector === undefined ? {} : { fieldSelector }),
    },
    certainlyContains: (obj) => {
      if (namespace !== undefined && obj.metadata?.namespace !== namespace) return false;
      if (labels && !labels.matches(obj.metadata?.labels)) return false;
      if (!fields) return true;
      return fieldsEvaluable && fields.matches((name) => CLIENT_FIELDS[name]!(obj));
    },
  };
}
