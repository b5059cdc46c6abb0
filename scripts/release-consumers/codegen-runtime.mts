// A consumer of @kubeloom/codegen-runtime installed alone from the registry: validates objects
// against a schema with a CEL rule and an RE2 pattern, as the apiserver would.
import { createValidator, type JsonSchemaProps } from '@kubeloom/codegen-runtime';

const schema: JsonSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[a-z]+$' },
    replicas: { type: 'integer', minimum: 1 },
  },
  'x-kubernetes-validations': [{ rule: 'self.replicas <= 5', message: 'at most 5 replicas' }],
};
const validator = createValidator<{ name: string; replicas: number }>(schema);
const good = validator.validate({ name: 'web', replicas: 2 });
const bad = validator.validate({ name: 'Web', replicas: 9 });
if (!good.valid || bad.valid) throw new Error('validation gave the wrong answer');
console.log(JSON.stringify({ ok: true, errors: bad.errors.length }));
