// A support bot with memory, in three messages. Run: npm run example:support-bot
//
// With OPENAI_BASE_URL (and OPENAI_MODEL, OPENAI_API_KEY if your server needs them) set, the bot
// and the steward use that OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio...). Without
// them, a scripted local model plays the conversation, so this runs offline.
import { createMemoryEngine } from '@memory/engine';
import { createOfflineEmbedder, createOpenAICompatibleLlm } from '@memory/providers';
import { createSupportBot, describeTurn } from './bot.js';
import { CONVERSATION } from './conversation.js';
import { createScriptedModel } from './scripted-model.js';

const baseUrl = process.env['OPENAI_BASE_URL'];
const llm = baseUrl
  ? createOpenAICompatibleLlm({
      baseUrl,
      model: process.env['OPENAI_MODEL'] ?? 'gpt-4o-mini',
      ...(process.env['OPENAI_API_KEY'] ? { apiKey: process.env['OPENAI_API_KEY'] } : {}),
    })
  : createScriptedModel();

await using engine = await createMemoryEngine({
  database: { path: process.env['SUPPORT_BOT_DB'] ?? ':memory:' },
  embedder: createOfflineEmbedder(),
  llm,
  // Prospective hints would cost one model call per memory; this demo keeps to the steward's calls.
  config: { hints: { enabled: false } },
});
const bot = createSupportBot({ engine, llm });

console.log(`model: ${baseUrl ? `${baseUrl} (${process.env['OPENAI_MODEL'] ?? 'gpt-4o-mini'})` : 'scripted, offline'}`);
for (const message of CONVERSATION) {
  console.log(`\n=== ${message.from}: ${message.text}`);
  const report = await bot.turn(message);
  console.log(`--- recalled before answering (${report.recalled.entities.length} host objects resolved):`);
  console.log(report.context.replace(/^/gm, '  | '));
  for (const line of describeTurn(report)) console.log(line);
}
