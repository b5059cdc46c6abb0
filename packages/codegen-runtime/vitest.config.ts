import { defineProject } from 'vitest/config';
import { packageProject } from '../../configs/vitest.shared.ts';

export default defineProject(packageProject('codegen-runtime'));
