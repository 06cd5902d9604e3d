import { z } from '@hono/zod-openapi';
import { requireAuth } from '../middleware/auth.js';

/** Shared pieces of the alerting routers. */
export const READ = [requireAuth({ scope: 'read' })];
export const WRITE = [requireAuth({ scope: 'write' })];
export const TAGS = ['alerting'];
export const idParam = (example: string) => z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example }) });
