import { styleText } from 'node:util';

type Style = 'bold' | 'dim' | 'green' | 'yellow' | 'red' | 'cyan';

/** A stream a command prints to: the process's stdout or stderr. */
export type Sink = NodeJS.WritableStream & { readonly isTTY?: boolean };

/**
 * How a command prints. On a terminal: colors and aligned columns. Piped: the same text without
 * colors. With `--json`: one JSON document on stdout and nothing else, for scripts.
 */
export interface Output {
  readonly json: boolean;
  readonly color: boolean;
  /** Whether stderr is a terminal (progress bars go there, and only then). */
  readonly interactive: boolean;
  readonly stderr: Sink;
  line(text?: string): void;
  /** A note for people: stderr, so it never mixes into piped data. */
  note(text: string): void;
  style(style: Style, text: string): string;
  /** Rows as aligned columns (no colors inside cells, so widths stay right). */
  table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): void;
  /** `key  value` pairs aligned on the key. */
  pairs(entries: ReadonlyArray<readonly [string, string]>): void;
  data(value: unknown): void;
}

/** How output is chosen: `--json`, `--no-color`, the streams and the environment. */
export interface OutputOptions {
  readonly json: boolean;
  /** `--no-color` sets false. */
  readonly color: boolean;
  readonly stdout: Sink;
  readonly stderr: Sink;
  readonly env: NodeJS.ProcessEnv;
}

/** Colors only for a terminal, and never when NO_COLOR is set (https://no-color.org) unless FORCE_COLOR is. */
function wantsColor(options: OutputOptions): boolean {
  if (options.json || !options.color) return false;
  const force = options.env['FORCE_COLOR'];
  if (force !== undefined && force !== '0') return true;
  if (options.env['NO_COLOR']) return false;
  return options.stdout.isTTY === true && options.env['TERM'] !== 'dumb';
}

const width = (s: string): number => [...s].length;
const pad = (s: string, n: number): string => s + ' '.repeat(Math.max(0, n - width(s)));

/**
 * The printer a command uses, chosen once from the flags, the streams and the environment.
 *
 * @example
 * ```ts
 * const output = createOutput({ json: false, color: true, stdout: process.stdout, stderr: process.stderr, env: process.env });
 * output.table(['id', 'status'], [['a1', 'done']]);
 * ```
 */
export function createOutput(options: OutputOptions): Output {
  const color = wantsColor(options);
  const { stdout, stderr } = options;
  const line = (text = ''): void => {
    stdout.write(`${text}\n`);
  };
  const style = (s: Style, text: string): string => (color ? styleText(s, text) : text);
  return {
    json: options.json,
    color,
    interactive: stderr.isTTY === true,
    stderr,
    line,
    note: (text) => {
      stderr.write(`${text}\n`);
    },
    style,
    table: (headers, rows) => {
      const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
      const render = (cells: readonly string[]): string =>
        cells
          .map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i] ?? 0)))
          .join('  ')
          .trimEnd();
      if (rows.length === 0) return line(style('dim', '(none)'));
      line(style('bold', render(headers)));
      for (const row of rows) line(render(row));
    },
    pairs: (entries) => {
      const keyWidth = Math.max(0, ...entries.map(([k]) => width(k)));
      for (const [k, v] of entries) line(`${style('dim', pad(k, keyWidth))}  ${v}`);
    },
    data: (value) => {
      stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

/** Epoch milliseconds as `YYYY-MM-DD HH:MM` (UTC), or a dash. */
export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}
