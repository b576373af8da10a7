export type { Inspector, InspectorOptions } from './server.js';
export { startInspector } from './server.js';
