import type { Selectable } from 'kysely';
import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import type { ConnectorItemsTable, ConnectorsTable } from '../schema/documents.js';

export type ConnectorRow = Selectable<ConnectorsTable>;
export type ConnectorItemRow = Selectable<ConnectorItemsTable>;

export function insertConnector(sql: SqlExecutor, row: ConnectorRow): void {
  sql.run(queryBuilder.insertInto('connectors').values(row).compile());
}

/** A connector in `agentId`'s scope. */
export function findConnector(sql: SqlExecutor, agentId: string, id: string): ConnectorRow | undefined {
  return sql.get(
    queryBuilder.selectFrom('connectors').selectAll().where('id', '=', id).where('agent_id', '=', agentId).compile(),
  );
}

/** An agent's connectors, oldest first. */
export function listConnectors(sql: SqlExecutor, agentId: string, limit: number): ConnectorRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('connectors')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .compile(),
  );
}

/** Updates a connector's sync state. */
export function updateConnector(
  sql: SqlExecutor,
  id: string,
  values: Partial<Pick<ConnectorRow, 'status' | 'cursor_json' | 'last_sync_at' | 'last_error'>>,
  now: number,
): void {
  sql.run(
    queryBuilder
      .updateTable('connectors')
      .set({ ...values, updated_at: now })
      .where('id', '=', id)
      .compile(),
  );
}

/** Removes a connector and its item cursors (its documents are deleted by the caller first). */
export function deleteConnector(sql: SqlExecutor, id: string): void {
  sql.run(queryBuilder.deleteFrom('connector_items').where('connector_id', '=', id).compile());
  sql.run(queryBuilder.deleteFrom('connectors').where('id', '=', id).compile());
}

export function findConnectorItem(sql: SqlExecutor, connectorId: string, key: string): ConnectorItemRow | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', key)
      .compile(),
  );
}

/** Records an item's cursor (inserted or replaced). */
export function upsertConnectorItem(sql: SqlExecutor, row: ConnectorItemRow): void {
  sql.run(
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
      )
      .compile(),
  );
}

/** Marks an unchanged item as seen by sync `sync`. */
export function markConnectorItemSeen(sql: SqlExecutor, connectorId: string, key: string, sync: number): void {
  sql.run(
    queryBuilder
      .updateTable('connector_items')
      .set({ seen_sync: sync })
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', key)
      .compile(),
  );
}

/** Items with these bytes that sync `sync` has not seen yet: where a renamed item may have come from. */
export function unseenItemsWithHash(
  sql: SqlExecutor,
  connectorId: string,
  hash: string,
  sync: number,
): ConnectorItemRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('byte_hash', '=', hash)
      .where('seen_sync', '<', sync)
      .orderBy('item_key')
      .limit(8)
      .compile(),
  );
}

/** Moves an item's cursor to a new key (a rename). */
export function renameConnectorItem(sql: SqlExecutor, connectorId: string, from: string, to: string): void {
  sql.run(
    queryBuilder
      .updateTable('connector_items')
      .set({ item_key: to })
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', from)
      .compile(),
  );
}

/** Up to `limit` items a sync did not see (gone from the source once a full listing finished). */
export function unseenConnectorItems(
  sql: SqlExecutor,
  connectorId: string,
  sync: number,
  limit: number,
): ConnectorItemRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('connector_items')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('seen_sync', '<', sync)
      .orderBy('item_key')
      .limit(limit)
      .compile(),
  );
}

export function deleteConnectorItem(sql: SqlExecutor, connectorId: string, key: string): void {
  sql.run(
    queryBuilder
      .deleteFrom('connector_items')
      .where('connector_id', '=', connectorId)
      .where('item_key', '=', key)
      .compile(),
  );
}

/** How many items a connector tracks. */
export function countConnectorItems(sql: SqlExecutor, connectorId: string): number {
  return (
    sql.get<{ n: number }>(
      queryBuilder
        .selectFrom('connector_items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('connector_id', '=', connectorId)
        .compile(),
    )?.n ?? 0
  );
}

/** Documents of a connector by status (for its status report). */
export function countConnectorDocuments(sql: SqlExecutor, connectorId: string): Record<string, number> {
  const rows = sql.all<{ status: string; n: number }>(
    queryBuilder
      .selectFrom('documents')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('connector_id', '=', connectorId)
      .groupBy('status')
      .compile(),
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Ids of a connector's live documents, up to `limit`. */
export function liveConnectorDocumentIds(sql: SqlExecutor, connectorId: string, limit: number): string[] {
  return sql
    .all<{ id: string }>(
      queryBuilder
        .selectFrom('documents')
        .select('id')
        .where('connector_id', '=', connectorId)
        .where('status', '!=', 'deleted')
        .limit(limit)
        .compile(),
    )
    .map((r) => r.id);
}
