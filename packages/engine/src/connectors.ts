import type {
  ConnectorKind,
  ConnectorRef,
  Connectors,
  ConnectorView,
  ListConnectorsInput,
  RegisterConnectorInput,
} from '@memory/ingest';
import { assertOpen, call, type EngineContext } from './context.js';

/**
 * Connectors: external sources kept in sync with an agent's documents. Every call but
 * `register`, `list` and `registerKind` takes `{ agentId, id }`: another scope's connector is
 * answered as one that does not exist (`NOT_FOUND`, or undefined from `status`).
 */
export interface EngineConnectors {
  /**
   * Registers a connector: `{ agentId, kind: 'folder', root, include?, exclude? }` (globs over
   * paths relative to `root`), or a host kind with its `config`. Nothing is read until `sync`.
   */
  register(input: RegisterConnectorInput): Promise<ConnectorView>;
  /**
   * Starts a sync as a durable job (after `start()` or on `runDue()`): new and changed items are
   * ingested as documents, renamed ones moved, gone ones deleted (their chunks forgotten). A sync
   * interrupted by a crash resumes without duplicates. A sync already running is returned.
   */
  sync(input: ConnectorRef): Promise<{ id: string; jobId: string; sync: number }>;
  /** The connector with its sync counters, refusals and documents by status; undefined outside its scope. */
  status(input: ConnectorRef): Promise<ConnectorView | undefined>;
  list(input: ListConnectorsInput): Promise<ConnectorView[]>;
  /** Removes the connector, its cursors and its documents (their chunk memories forgotten with history). */
  remove(input: ConnectorRef): Promise<{ removed: boolean; deletedDocuments: number }>;
  /**
   * Adds a host's own connector kind (a mail box, a wiki) for this engine. Prefer the
   * `connectorKinds` option: a sync job left by a crash may run before a later `registerKind`.
   */
  registerKind(kind: ConnectorKind): void;
}

/** The engine's `connectors` namespace over the ingest package's connectors. */
export function engineConnectors(ctx: EngineContext, connectors: Connectors): EngineConnectors {
  return Object.freeze({
    register: (input) => call(ctx, () => connectors.register(input)),
    sync: (input) => call(ctx, () => connectors.sync(input)),
    status: (input) => call(ctx, () => connectors.status(input)),
    list: (input) => call(ctx, () => connectors.list(input)),
    remove: (input) => call(ctx, () => connectors.remove(input)),
    registerKind: (kind) => {
      assertOpen(ctx);
      connectors.registerKind(kind);
    },
  } satisfies EngineConnectors);
}
