import type { Selectable } from 'kysely';
import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ConnectorItemsTable, ConnectorsTable } from '../schema/documents.js';

export type ConnectorRow = Selectable<ConnectorsTable>;
export type ConnectorItemRow = Selectable<ConnectorItemsTable>;

// Each function has a program form (`...Program`, issue 18) that runs on either dialect; the
// synchronous function runs it on a SQLite executor.

export function insertConnector(sql: SqlExecutor, row: ConnectorRow): void {
  runSqliteProgram(sql, insertConnectorProgram(row));
}

/** {@link insertConnector} as a program. */
export function* insertConnectorProgram(row: ConnectorRow): Program<void> {
  yield* run(queryBuilder.insertInto('connectors').values(row));
}

/** A connector in `agentId`'s scope. */
export function findConnector(sql: SqlExecutor, agentId: string, id: string): ConnectorRow | undefined {
  return runSqliteProgram(sql, findConnectorProgram(agentId, id));
}

/** {@link findConnector} as a program. */
export function* findConnectorProgram(agentId: string, id: string): Program<ConnectorRow | undefined> {
  return yield* get<ConnectorRow>(
    queryBuilder.selectFrom('connectors').selectAll().where('id', '=', id).where('agent_id', '=', agentId),
  );
}

/** An agent's connectors, oldest first. */
export function listConnectors(sql: SqlExecutor, agentId: string, limit: number): ConnectorRow[] {
  return runSqliteProgram(sql, listConnectorsProgram(agentId, limit));
}

/** {@link listConnectors} as a program. */
export function* listConnectorsProgram(agentId: string, limit: number): Program<ConnectorRow[]> {
  return yield* all<ConnectorRow>(
    queryBuilder
      .selectFrom('connectors')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit),
  );
}

export type ConnectorUpdate = Partial<Pick<ConnectorRow, 'status' | 'cursor_json' | 'last_sync_at' | 'last_error'>>;

/** Updates a connector's sync state. */
export function updateConnector(sql: SqlExecutor, id: string, values: ConnectorUpdate, now: number): void {
  runSqliteProgram(sql, updateConnectorProgram(id, values, now));
}

/** {@link updateConnector} as a program. */
export function* updateConnectorProgram(id: string, values: ConnectorUpdate, now: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('connectors')
      .set({ ...values, updated_at: now })
      .where('id', '=', id),
  );
}

/** Removes a connector and its item cursors (its documents are deleted by the caller first). */
export function deleteConnector(sql: SqlExecutor, id: string): void {
  runSqliteProgram(sql, deleteConnectorProgram(id));
}

/** {@link deleteConnector} as a program. */
export function* deleteConnectorProgram(id: string): Program<void> {
  yield* run(queryBuilder.deleteFrom('connector_items').where('connector_id', '=', id));
  yield* run(queryBuilder.deleteFrom('connectors').where('id', '=', id));
}

export function findConnectorItem(sql: SqlExecutor, connectorId: string, key: string): ConnectorItemRow | undefined {
  return runSqliteProgram(sql, findConnectorItemProgram(connectorId, key));
}

/** {@link findConnectorItem} as a program. */
export function* findConnectorItemProgram(connectorId: string, key: string): Program<ConnectorItemRow | undefined> {
  return yield* get<ConnectorItemRow>(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', key),
  );
}

/** Records an item's cursor (inserted or replaced). */
export function upsertConnectorItem(sql: SqlExecutor, row: ConnectorItemRow): void {
  runSqliteProgram(sql, upsertConnectorItemProgram(row));
}

/** {@link upsertConnectorItem} as a program. */
export function* upsertConnectorItemProgram(row: ConnectorItemRow): Program<void> {
  yield* run(
    queryBuilder
      .insertInto('connector_items')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['connector_id', 'item_key']).doUpdateSet({
          version: row.version,
          byte_hash: row.byte_hash,
          document_id: row.document_id,
          seen_sync: row.seen_sync,
          updated_at: row.updated_at,
        }),
      ),
  );
}

/** Marks an unchanged item as seen by sync `sync`. */
export function markConnectorItemSeen(sql: SqlExecutor, connectorId: string, key: string, sync: number): void {
  runSqliteProgram(sql, markConnectorItemSeenProgram(connectorId, key, sync));
}

/** {@link markConnectorItemSeen} as a program. */
export function* markConnectorItemSeenProgram(connectorId: string, key: string, sync: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('connector_items')
      .set({ seen_sync: sync })
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', key),
  );
}

/** Items with these bytes that sync `sync` has not seen yet: where a renamed item may have come from. */
export function unseenItemsWithHash(
  sql: SqlExecutor,
  connectorId: string,
  hash: string,
  sync: number,
): ConnectorItemRow[] {
  return runSqliteProgram(sql, unseenItemsWithHashProgram(connectorId, hash, sync));
}

/** {@link unseenItemsWithHash} as a program. */
export function* unseenItemsWithHashProgram(
  connectorId: string,
  hash: string,
  sync: number,
): Program<ConnectorItemRow[]> {
  return yield* all<ConnectorItemRow>(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('byte_hash', '=', hash)
      .where('seen_sync', '<', sync)
      .orderBy('item_key')
      .limit(8),
  );
}

/** Moves an item's cursor to a new key (a rename). */
export function renameConnectorItem(sql: SqlExecutor, connectorId: string, from: string, to: string): void {
  runSqliteProgram(sql, renameConnectorItemProgram(connectorId, from, to));
}

/** {@link renameConnectorItem} as a program. */
export function* renameConnectorItemProgram(connectorId: string, from: string, to: string): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('connector_items')
      .set({ item_key: to })
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', from),
  );
}

/** Up to `limit` items a sync did not see (gone from the source once a full listing finished). */
export function unseenConnectorItems(
  sql: SqlExecutor,
  connectorId: string,
  sync: number,
  limit: number,
): ConnectorItemRow[] {
  return runSqliteProgram(sql, unseenConnectorItemsProgram(connectorId, sync, limit));
}

/** {@link unseenConnectorItems} as a program. */
export function* unseenConnectorItemsProgram(
  connectorId: string,
  sync: number,
  limit: number,
): Program<ConnectorItemRow[]> {
  return yield* all<ConnectorItemRow>(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('seen_sync', '<', sync)
      .orderBy('item_key')
      .limit(limit),
  );
}

export function deleteConnectorItem(sql: SqlExecutor, connectorId: string, key: string): void {
  runSqliteProgram(sql, deleteConnectorItemProgram(connectorId, key));
}

/** {@link deleteConnectorItem} as a program. */
export function* deleteConnectorItemProgram(connectorId: string, key: string): Program<void> {
  yield* run(
    queryBuilder.deleteFrom('connector_items').where('connector_id', '=', connectorId).where('item_key', '=', key),
  );
}

/** How many items a connector tracks. */
export function countConnectorItems(sql: SqlExecutor, connectorId: string): number {
  return runSqliteProgram(sql, countConnectorItemsProgram(connectorId));
}

/** {@link countConnectorItems} as a program. */
export function* countConnectorItemsProgram(connectorId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    queryBuilder
      .selectFrom('connector_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('connector_id', '=', connectorId),
  );
  return Number(row?.n ?? 0);
}

/** Documents of a connector by status (for its status report). */
export function countConnectorDocuments(sql: SqlExecutor, connectorId: string): Record<string, number> {
  return runSqliteProgram(sql, countConnectorDocumentsProgram(connectorId));
}

/** {@link countConnectorDocuments} as a program. */
export function* countConnectorDocumentsProgram(connectorId: string): Program<Record<string, number>> {
  const rows = yield* all<{ status: string; n: number }>(
    queryBuilder
      .selectFrom('documents')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('connector_id', '=', connectorId)
      .groupBy('status')
      // The report's keys in one order on both dialects.
      .orderBy('status'),
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Ids of a connector's live documents, up to `limit`. */
export function liveConnectorDocumentIds(sql: SqlExecutor, connectorId: string, limit: number): string[] {
  return runSqliteProgram(sql, liveConnectorDocumentIdsProgram(connectorId, limit));
}

/** {@link liveConnectorDocumentIds} as a program. */
export function* liveConnectorDocumentIdsProgram(connectorId: string, limit: number): Program<string[]> {
  const rows = yield* all<{ id: string }>(
    queryBuilder
      .selectFrom('documents')
      .select('id')
      .where('connector_id', '=', connectorId)
      .where('status', '!=', 'deleted')
      .orderBy('id')
      .limit(limit),
  );
  return rows.map((r) => r.id);
}
