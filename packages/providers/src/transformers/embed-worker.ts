import { parentPort, workerData } from 'node:worker_threads';
import { embedBatchFlat, loadTransformersModel } from './model.js';
import { type EmbedRequest, toWire, type WorkerData, type WorkerMessage } from './wire.js';

// The transformers embedder's worker thread. onnxruntime-node runs a session synchronously on the
// thread that calls it (its `run` only defers to setImmediate), so a batch through a real encoder
// would block the host's event loop for hundreds of milliseconds: the model lives here instead.

const post = (message: WorkerMessage, transfer?: ArrayBuffer[]): void => parentPort?.postMessage(message, transfer);

const loading = loadTransformersModel(workerData as WorkerData);
loading.then(
  (m) => post({ type: 'ready', info: m.info }),
  (error: unknown) => post({ type: 'failed', error: toWire(error) }),
);

parentPort?.on('message', (request: EmbedRequest) => {
  loading
    .then((m) => embedBatchFlat(m, request.texts))
    .then(
      (vectors) => post({ type: 'vectors', id: request.id, vectors }, [vectors.buffer as ArrayBuffer]),
      (error: unknown) => post({ type: 'error', id: request.id, error: toWire(error) }),
    );
});
