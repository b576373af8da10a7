import { packageBuild } from '../../tsup.base.js';

// The embedding worker is its own entry: the offline embedder starts it as dist/offline/embed-worker.js.
export default packageBuild(['src/index.ts', 'src/offline/embed-worker.ts']);
