// A resource using the schema and resource markers that the egress fixture does not: every one
// appears at least once, and the golden CRD shows what each emits.

/**
 * A tunable knob.
 *
 * @title Knob
 * @group markers.kubeloom.dev
 * @version v1
 * @singular knob
 * @listKind KnobCollection
 * @subresource none
 */
export interface Knob {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  spec: KnobSpec;
}

/**
 * @atMostOneOf fast,slow
 * @atLeastOneOf label,selector
 * @minProperties 2
 * @externalDocs url="https://example.com/knobs" description="Knob reference"
 */
export interface KnobSpec {
  /**
   * Free text.
   *
   * @title Label
   * @example "primary"
   */
  label?: string;
  /**
   * Required although declared optional.
   *
   * @required
   * @enum ["red", "green"]
   */
  color?: string;
  /**
   * Optional although declared required.
   *
   * @optional
   * @format int32
   * @exclusiveMaximum 10
   */
  level: number;
  /**
   * @float
   * @multipleOf 0.25
   * @maximum 5
   * @exclusiveMaximum
   */
  ratio?: number;
  /** @nullable */
  note?: string;
  /** @format int32 */
  fast?: number;
  /** @format int32 */
  slow?: number;
  /**
   * A name starting with "k-" or at least six characters long, never "kknone".
   *
   * @anyOf [{"pattern": "^k-"}, {"minLength": 6}]
   * @not {"enum": ["kknone"]}
   */
  target?: string;
  /**
   * @allOf [{"minLength": 2}, {"maxLength": 8}]
   */
  code?: string;
  /** @minProperties 1 */
  selector?: Record<string, string>;
}
