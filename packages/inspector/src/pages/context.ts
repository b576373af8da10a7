import type { MemoryEngine } from '@memory/engine';
import type { Html } from '../html.js';

/** What every page handler gets: the engine, the one agent in scope, and whether writes are allowed. */
export interface PageContext {
  readonly engine: MemoryEngine;
  readonly agentId: string;
  readonly canWrite: boolean;
  readonly query: URLSearchParams;
}

/** A page to render, or where to send the browser after a write. */
export type PageResult =
  | { readonly kind: 'page'; readonly status?: number; readonly title: string; readonly body: Html }
  | { readonly kind: 'redirect'; readonly location: string };

/** A rendered page. */
export function pageOf(title: string, body: Html, status?: number): PageResult {
  return { kind: 'page', title, body, ...(status !== undefined ? { status } : {}) };
}
