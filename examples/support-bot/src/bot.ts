// The support bot: one turn = recall what the desk knows about this sender and topic, answer with
// the bot's own model, then let the steward consolidate what is worth keeping.
import type { ConsolidationResult, LlmProvider, MemoryEngine, TaskRecall } from '@memory/engine';
import { contactBySender, projectByKeyword } from './desk.js';

/** The tools the bot can say it used; the high-signal ones make the steward update working notes. */
export const TOOLS = ['email_send', 'calendar_create_event', 'kb_search'] as const;

export interface IncomingMessage {
  readonly from: string;
  readonly text: string;
}

export interface TurnReport {
  readonly taskId: string;
  /** What the steward recalled before the answer, and the prompt text it became. */
  readonly recalled: TaskRecall;
  readonly context: string;
  readonly reply: string;
  readonly toolsUsed: readonly string[];
  /** What the steward stored, updated, rejected and noted after the answer. */
  readonly consolidation: ConsolidationResult;
}

const SYSTEM = `You are the support bot of a small software company.
Use the context below. LINKED CONTEXT is verified; POSSIBLY RELATED may be about someone else.
Answer with JSON only: {"reply": "...", "tools": [...]}, where tools lists what you did,
from: ${TOOLS.join(', ')}.`;

/** Reads the model's answer; a model that ignored the JSON instruction still gets its text through. */
function parseAnswer(text: string): { reply: string; tools: string[] } {
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  try {
    const value = JSON.parse(json) as { reply?: unknown; tools?: unknown };
    const known: readonly string[] = TOOLS;
    const tools = Array.isArray(value.tools)
      ? value.tools.filter((t): t is string => typeof t === 'string' && known.includes(t))
      : [];
    return { reply: typeof value.reply === 'string' ? value.reply : text, tools };
  } catch {
    return { reply: text.trim(), tools: [] };
  }
}

/** A support bot over an engine; `llm` is the bot's own model (the engine's steward may share it). */
export function createSupportBot(options: { engine: MemoryEngine; llm: LlmProvider; agentId?: string }) {
  const { engine, llm } = options;
  const agentId = options.agentId ?? 'support-bot';
  engine.steward.registerResolver(contactBySender);
  engine.steward.registerResolver(projectByKeyword);
  let turns = 0;
  return {
    async turn(message: IncomingMessage): Promise<TurnReport> {
      const taskId = `turn-${++turns}`;
      const task = { agentId, taskId, text: message.text, sender: { email: message.from } };
      // 1. Before the answer: what do we know about this sender and topic?
      const recalled = await engine.steward.recall(task);
      const context = engine.steward.format(recalled, { budgetTokens: 600 });
      // 2. The answer, from the bot's own model.
      const answer = await llm.generate({
        messages: [
          { role: 'system', content: `${SYSTEM}\nTask: ${taskId}\n\n${context}` },
          { role: 'user', content: `From ${message.from}: ${message.text}` },
        ],
        responseFormat: 'json',
      });
      const { reply, tools } = parseAnswer(answer.text);
      // 3. After the answer: keep what is durable, update follow-up notes.
      const consolidation = await engine.steward.consolidate({
        ...task,
        outcome: 'completed',
        transcript: [
          { role: 'user', content: message.text },
          { role: 'assistant', content: reply },
        ],
        toolsUsed: tools,
      });
      return { taskId, recalled, context, reply, toolsUsed: tools, consolidation };
    },
  };
}

/** What a turn remembered and why, as lines to print. */
export function describeTurn(report: TurnReport): string[] {
  const { consolidation: c } = report;
  const links = (l: ReadonlyArray<{ type: string; refId: string; label?: string | undefined }>) =>
    l.length === 0 ? 'no links' : l.map((x) => x.label ?? `${x.type}:${x.refId}`).join(', ');
  const lines = [`bot: ${report.reply}`, `tools used: ${report.toolsUsed.join(', ') || 'none'}`];
  for (const m of c.stored) lines.push(`  remembered [${m.kind}] ${m.content} (${links(m.linkedEntities)})`);
  for (const m of c.updated) lines.push(`  updated [${m.kind}] ${m.content} (was: ${m.previous})`);
  for (const m of c.stored.concat(c.updated))
    for (const link of m.rejectedLinks) lines.push(`  dropped link ${link}: not a host object this task resolved`);
  for (const r of c.rejected) lines.push(`  not kept (${r.reason}): ${r.content}`);
  for (const n of c.notes.changes) lines.push(`  note ${n.action}d: ${n.title} (${links(n.linkedEntities)})`);
  if (c.notes.skipped) lines.push(`  notes: ${c.notes.skipped.replaceAll('_', ' ')}`);
  for (const w of c.warnings) lines.push(`  warning: ${w}`);
  return lines;
}
