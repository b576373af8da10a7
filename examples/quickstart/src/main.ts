// The quick-start demo on the embedded defaults: a SQLite file, the offline embedder, two agents,
// dedup, hybrid recall (words and meaning), linked context, forget/recover with history, transcripts
// and documents through the background queue.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RecallResponse, RememberManyMemory } from '@memory/engine';
import { createMemoryEngine, formatRecall, isMemoryError } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';

const file = join(import.meta.dirname, '..', 'quickstart.db');
for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });

// GloVe word vectors with SIF weighting: no network, no model server. `await using` closes the engine
// (background work stopped, database closed) when the module's scope ends.
await using engine = await createMemoryEngine({ database: { path: file }, embedder: createOfflineEmbedder() });
const line = (text = '') => console.log(text);
const heading = (text: string) => line(`\n== ${text} ${'='.repeat(Math.max(0, 70 - text.length))}`);

const support: RememberManyMemory[] = [
  { content: 'Dana Whitfield is the customer success lead for the Northwind account.', type: 'fact', who: 'dana' },
  {
    content: 'Northwind renews their enterprise contract every March; the renewal call is with Dana.',
    type: 'fact',
    project: 'northwind',
  },
  {
    content: 'Dana prefers short status emails with a bullet list, no attachments.',
    type: 'preference',
    who: 'dana',
    linkedEntities: [{ type: 'contact', refId: 'crm-1042', label: 'Dana Whitfield' }],
  },
  {
    content: 'We decided to give Northwind a 10% discount if they commit to two years.',
    type: 'decision',
    project: 'northwind',
  },
  {
    content: 'Never promise a delivery date for custom integrations without engineering sign-off.',
    type: 'constraint',
    pinned: true,
  },
  {
    content: 'The escalation path is: support engineer, then Priya (support manager), then the CTO.',
    type: 'procedural',
  },
  { content: 'Priya Raman manages the support team and approves refunds above $500.', type: 'fact', who: 'priya' },
  { content: 'Refunds under $500 can be approved by any support engineer.', type: 'operating_rule' },
  {
    content: 'Contoso reported an outage on 2026-02-03 caused by an expired TLS certificate.',
    type: 'incident',
    project: 'contoso',
  },
  { content: 'Contoso wants weekly usage reports sent on Monday mornings.', type: 'preference', project: 'contoso' },
  {
    content: 'The Contoso integration uses the v2 webhooks API; v1 was retired in January.',
    type: 'fact',
    project: 'contoso',
  },
  { content: 'Our support hours are 8:00 to 18:00 CET, Monday to Friday.', type: 'fact' },
  { content: 'Tickets tagged "billing" go to the finance queue, not to support.', type: 'operating_rule' },
  {
    content: 'Marco from Contoso prefers phone calls over email for anything urgent.',
    type: 'preference',
    who: 'marco',
  },
  { content: 'The status page lives at status.example.com and is updated by the on-call engineer.', type: 'fact' },
  {
    content: 'We agreed with Northwind that feature requests are reviewed in the monthly roadmap call.',
    type: 'agreement',
    project: 'northwind',
  },
  { content: 'Use the "apology credit" template when an outage lasts more than four hours.', type: 'procedural' },
  {
    content: 'Dana is on parental leave from June to August; Priya covers the Northwind account.',
    type: 'fact',
    project: 'northwind',
  },
];

const coding: RememberManyMemory[] = [
  { content: 'The monorepo uses pnpm workspaces and TypeScript project references.', type: 'fact' },
  { content: 'Run the test suite with npm test before pushing; CI runs the same command.', type: 'procedural' },
  {
    content: 'We decided to keep SQLite as the default store and treat Postgres as an optional deployment target.',
    type: 'decision',
  },
  { content: 'Never call the LLM inside a database write transaction.', type: 'constraint', pinned: true },
  { content: 'Alex prefers small commits with messages that explain why, not what.', type: 'preference', who: 'alex' },
  { content: 'The renderer is written in C++ and the CLI in Node.js.', type: 'fact' },
  { content: 'better-sqlite3 must be version 12 on Node 20; version 13 crashes.', type: 'constraint' },
  { content: 'Benchmarks live in bench/ and print numbers; they are not unit tests.', type: 'fact' },
  { content: 'The release train leaves every second Tuesday; hotfixes can go any day.', type: 'operating_rule' },
  { content: 'Alex owns the storage layer; Sam owns the recall ranking code.', type: 'fact' },
  { content: 'Flaky tests are quarantined with a linked issue, never silently skipped.', type: 'operating_rule' },
  {
    content: 'Sam prefers code review comments as suggestions rather than blocking requests.',
    type: 'preference',
    who: 'sam',
  },
  { content: 'The ingest worker must never hold a write lock while fetching a URL.', type: 'constraint' },
  { content: 'Error codes are stable strings; callers branch on code, never on message.', type: 'decision' },
];

heading('remember');
const supportIds = await engine.rememberMany({ agentId: 'support-bot', memories: support });
const codingIds = await engine.rememberMany({ agentId: 'coding-agent', memories: coding });
line(`support-bot: ${supportIds.length} memories, coding-agent: ${codingIds.length} memories (file: ${file})`);

heading('dedup (same content, normalized)');
const again = await engine.remember({
  agentId: 'support-bot',
  content: '  dana prefers SHORT status emails with a bullet list, no attachments ',
});
line(`remember again → deduped: ${again.deduped}, same id: ${again.id === supportIds[2]?.id}`);
const otherScope = await engine.remember({
  agentId: 'coding-agent',
  content: 'Dana prefers short status emails with a bullet list, no attachments.',
});
line(`same text for another agent → deduped: ${otherScope.deduped} (scopes never share memories)`);
await engine.forget({ agentId: 'coding-agent', id: otherScope.id, reason: 'demo cleanup' });

const channels = (r: RecallResponse['results'][number]) =>
  Object.entries(r.channels)
    .map(([name, score]) => `${name} ${score.toFixed(2)}`)
    .join(', ');
const show = (label: string, response: RecallResponse) => {
  line(`\n? ${label}   [${response.timings.totalMs.toFixed(2)} ms, vectors: ${response.vectorCompleteness}]`);
  if (response.results.length === 0) line('  (nothing)');
  for (const r of response.results.slice(0, 3))
    line(`  ${r.score.toFixed(3)} ${r.tier.padEnd(7)} [${r.type}] ${r.content}   (${channels(r)})`);
};

heading('hybrid recall (words and meaning, one agent at a time)');
const queries: Array<[string, string]> = [
  ['support-bot', 'Who approves refunds?'],
  ['support-bot', 'When does Northwind renew?'],
  ['support-bot', 'How should I email Dana?'],
  ['support-bot', 'contoso outage certificate'],
  ['coding-agent', 'which version of better-sqlite3 works on node 20'],
  ['coding-agent', 'c++'],
  ['coding-agent', 'Who owns recall ranking?'],
  ['coding-agent', 'refunds'],
  // Meaning, not words: neither query shares a word with the memory that answers it.
  ['support-bot', 'who can reimburse a client?'],
  ['support-bot', 'telephone'],
];
for (const [agentId, query] of queries) show(`${agentId}: ${query}`, await engine.recall({ agentId, query, limit: 3 }));

heading('linked context for a prompt (formatRecall)');
const forDana = await engine.recall({
  agentId: 'support-bot',
  query: 'Northwind renewal call',
  linkedEntities: [{ type: 'contact', refId: 'crm-1042' }],
  limit: 4,
});
line(formatRecall(forDana, { budgetTokens: 200 }));

heading('forget, recover, history');
const target = supportIds[3]?.id ?? '';
await engine.forget({ agentId: 'support-bot', id: target, reason: 'discount offer withdrawn' });
show('after forget: northwind discount', await engine.recall({ agentId: 'support-bot', query: 'northwind discount' }));
await engine.recover({ agentId: 'support-bot', id: target, reason: 'offer reinstated' });
show('after recover: northwind discount', await engine.recall({ agentId: 'support-bot', query: 'northwind discount' }));
await engine.modify({
  agentId: 'support-bot',
  id: target,
  reason: 'terms changed',
  content: 'We decided to give Northwind a 12% discount if they commit to three years.',
});
for (const h of await engine.history({ agentId: 'support-bot', id: target })) {
  line(
    `  ${h.event.padEnd(9)} by ${h.changedBy}${h.reason ? ` (${h.reason})` : ''}${h.newContent ? ` → ${h.newContent}` : ''}`,
  );
}

heading('pinned memories need force');
const pinned = supportIds[4]?.id ?? '';
try {
  await engine.forget({ agentId: 'support-bot', id: pinned, reason: 'cleanup' });
} catch (error) {
  if (isMemoryError(error, 'PINNED')) line(`forget refused: ${error.code} — ${error.message}`);
  else throw error;
}

heading('transcripts and documents (background work)');
const session = await engine.transcripts.append({
  agentId: 'support-bot',
  sessionKey: 'chat-2026-03-02',
  harness: 'quickstart',
  turns: [
    { role: 'user', content: 'Contoso says the v2 webhooks are timing out again.', id: 'm1' },
    { role: 'tool_call', content: '{"name":"status.check"}' },
    {
      role: 'assistant',
      content: 'Checked: their endpoint answers in 31 s; our limit is 30 s. I asked Marco to raise it.',
      id: 'm2',
    },
  ],
});
line(`transcript: ${session.appended} turns kept, ${session.dropped} dropped (tool calls are not evidence)`);
await engine.transcripts.complete({ agentId: 'support-bot', sessionKey: 'chat-2026-03-02' });
const handbook = [
  '# Support handbook',
  'Escalations go to the on-call support engineer first. If nobody answers within 15 minutes, page Priya.',
  'Refunds above $500 need Priya. Refunds below that can be approved by any support engineer.',
  'Webhook timeouts: customers must answer within 30 seconds; ask them to acknowledge first and process later.',
].join('\n\n');
const doc = await engine.documents.add({ agentId: 'support-bot', content: handbook, contentType: 'text/markdown' });
await engine.remember({
  agentId: 'support-bot',
  content: 'Contoso webhook timeouts: their endpoint answers in 31 s, over our 30 s limit; Marco will raise it.',
  type: 'incident',
  source: { type: 'transcript', id: 'chat-2026-03-02' },
});
const ran = await engine.runDue(); // serverless style: run due background work now
const ingested = await engine.documents.get({ agentId: 'support-bot', id: doc.id });
line(
  `background jobs run: ${ran.ran}; document "${ingested?.title}" → ${ingested?.status}, ${ingested?.chunkCount} chunk(s)`,
);
const timeouts = await engine.recall({
  agentId: 'support-bot',
  query: 'webhook timeout seconds',
  limit: 3,
  expand: true,
});
show('support-bot: webhook timeout limit (expand: true)', timeouts);
for (const x of timeouts.expansions ?? [])
  line(`  session ${x.sessionKey}:\n    ${x.excerpt.replaceAll('\n', '\n    ')}`);
for (const hit of await engine.transcripts.search({ agentId: 'support-bot', query: 'webhooks timing out' })) {
  line(`  transcript ${hit.sessionKey} (${hit.role}): ${hit.content}`);
}

line('\ndone.');
