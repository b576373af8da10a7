export type { MemoryMiddlewareOptions } from './memory-middleware.js';
export { memoryMiddleware } from './memory-middleware.js';
export type {
  ForgetToolInput,
  ForgetToolOutput,
  MemoryToolRefusal,
  MemoryTools,
  MemoryToolsOptions,
  RecallToolInput,
  RecallToolOutput,
  RememberToolInput,
  RememberToolOutput,
} from './memory-tools.js';
export { memoryTools } from './memory-tools.js';
