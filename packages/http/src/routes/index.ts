import type { Route } from '../route.js';
import { documentRoutes } from './documents.js';
import { importRoutes } from './imports.js';
import { jobRoutes } from './jobs.js';
import { memoryRoutes } from './memories.js';
import { noteRoutes } from './notes.js';
import { recallRoutes } from './recall.js';
import { registryRoutes } from './registry.js';
import { transcriptRoutes } from './transcripts.js';

/** Every API route, in registration order (static segments before parameters they could match). */
export const API_ROUTES: readonly Route[] = Object.freeze([
  ...memoryRoutes,
  ...recallRoutes,
  ...transcriptRoutes,
  ...documentRoutes,
  ...importRoutes,
  ...jobRoutes,
  ...noteRoutes,
  ...registryRoutes,
]);
