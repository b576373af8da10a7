import { agentIdSchema, parseInput, timeSchema } from '@memory/core';
import { listRecallTelemetryProgram, purgeRecallTelemetryProgram, type RecallTelemetryRow } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';

const listSchema = z.strictObject({ agentId: agentIdSchema, limit: z.number().int().min(1).max(10_000).optional() });
const purgeSchema = z.strictObject({ agentId: agentIdSchema, before: timeSchema.optional() });

export type TelemetryListInput = z.input<typeof listSchema>;
export type TelemetryPurgeInput = z.input<typeof purgeSchema>;

/** Opt-in local recall telemetry (`config.telemetry.recallQa`). It holds query text, so it is scoped and purgeable. */
export interface EngineTelemetry {
  /** One agent's recorded recalls, newest first. @default limit 100 */
  list(input: TelemetryListInput): Promise<RecallTelemetryRow[]>;
  /** Deletes one agent's telemetry (all, or recorded before `before`); returns rows deleted. */
  purge(input: TelemetryPurgeInput): Promise<number>;
}

/** One agent's recorded recalls, newest first (100 unless `limit`). Either dialect. */
export function listTelemetry(ctx: EngineContext, input: unknown): Promise<RecallTelemetryRow[]> {
  const { agentId, limit } = parseInput(listSchema, input, 'telemetry.list');
  return ctx.portable.db.read(() => listRecallTelemetryProgram(agentId, limit ?? 100));
}

/** Deletes one agent's telemetry, all or recorded before `before`; returns rows deleted. Either dialect. */
export function purgeTelemetry(ctx: EngineContext, input: unknown): Promise<number> {
  const { agentId, before } = parseInput(purgeSchema, input, 'telemetry.purge');
  return ctx.portable.db.write(() => purgeRecallTelemetryProgram(agentId, before));
}
