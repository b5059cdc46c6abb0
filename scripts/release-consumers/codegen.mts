// A consumer of @kubeloom/codegen installed alone from the registry: TypeScript types from a CRD.
import { readCrds, resourcesToTypeScript } from '@kubeloom/codegen';

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
`;
const files = resourcesToTypeScript(readCrds(crd, 'widgets.yaml'));
const text = files.map((f) => f.content).join('\n');
if (!/interface Widget\b/.test(text) || !text.includes('size')) throw new Error('no Widget type generated');
console.log(JSON.stringify({ ok: true, files: files.map((f) => f.path) }));
