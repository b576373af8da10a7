import type Database from 'better-sqlite3';

/**
 * Calls `onRun` with its SQL text on every run (`all`, `get`, `run`, `iterate`) of a statement the
 * connection prepares from now on: for benches that count the statements a write runs.
 */
export function onStatementRun(db: Database.Database, onRun: (source: string) => void): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const call = statement[method].bind(statement) as (...parameters: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...parameters: unknown[]) => {
        onRun(source);
        return call(...parameters);
      };
    }
    return statement;
  }) as typeof db.prepare;
}
