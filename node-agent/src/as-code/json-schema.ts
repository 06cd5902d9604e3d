import { z } from 'zod';
import { asCodeFileSchema } from './format.js';

/**
 * The JSON Schema (draft 2020-12) of a version 1 file, generated from the shared-protocol
 * request schemas format.ts is built from (zod's own toJSONSchema, input side: defaults are
 * optional). Editors use it for completion (`# yaml-language-server: $schema=…`).
 */
export function asCodeJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(asCodeFileSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  // Top-level keys starting with x- hold YAML anchors for repetition.
  return { ...schema, title: 'Vantage monitoring as code, version 1', patternProperties: { '^x-': {} } };
}
