/**
 * `@kubeloom/codegen`: TypeScript types with JSDoc markers → CRDs (structural schemas, CEL,
 * RBAC), and CRDs → TypeScript types, typed resource descriptors, runtime validators and typed
 * client constructors, through one intermediate model. See README.md for the marker vocabulary.
 * What generated code needs at run time (validators, CEL, RE2, formats) is in
 * `@kubeloom/codegen-runtime`, a separate package without the compiler.
 *
 * @packageDocumentation
 */

// The schema keywords of the model (`SchemaNode`) are the runtime's: re-exported, not redeclared.
export type { SchemaKeywords } from '@kubeloom/codegen-runtime';
export { type CliIO, runCli } from './cli-main.ts';
export { CodegenError, type CodegenIssue, formatIssue, formatLocation } from './codegen-error.ts';
export { type ReadCrdsOptions, readCrdFile, readCrds } from './crd-reader.ts';
export {
  type CrdDocument,
  crdsToYaml,
  resourceToCrd,
  type SchemaJsonOptions,
  schemaToJson,
} from './crd-writer.ts';
export {
  expandInputs,
  type GenerateCrdsOptions,
  type GenerateCrdsResult,
  type GenerateTypesOptions,
  type GenerateTypesResult,
  generateCrds,
  generateTypes,
} from './generate.ts';
export type {
  ApiModel,
  CelReason,
  CelRule,
  ExternalDocs,
  PolicyRuleModel,
  PrinterColumn,
  ResourceModel,
  ScaleSubresource,
  SchemaNode,
  SchemaType,
  SourceLocation,
  VersionModel,
} from './ir.ts';
export { MARKERS, type MarkerSpec, type MarkerTarget, type MarkerValue } from './markers.ts';
export { PartialGenerationError } from './partial-generation-error.ts';
export { type ClusterRoleDocument, clusterRoleToYaml, permissionsToClusterRole } from './rbac.ts';
export { checkResource } from './structural.ts';
export { type ReadTypeScriptOptions, readTypeScript } from './ts-reader.ts';
export {
  type GeneratedFile,
  type ImportExtension,
  moduleFileName,
  resourcesToTypeScript,
  type TypeScriptWriterOptions,
  versionDirectory,
  versionToTypeScript,
} from './ts-writer.ts';
