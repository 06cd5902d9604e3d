import { z } from 'zod';

/** Node hub and probe configuration (issue 6): filled in by the hub work. */
export const nodesConfigSchema = z.object({});
