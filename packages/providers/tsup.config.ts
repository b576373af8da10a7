import { packageBuild } from '../../tsup.base.js';

// The embedding workers are their own entries: the offline embedder starts dist/offline/embed-worker.js,
// the transformers embedder dist/transformers/embed-worker.js.
export default packageBuild(['src/index.ts', 'src/offline/embed-worker.ts', 'src/transformers/embed-worker.ts']);
