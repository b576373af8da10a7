export type { AiSdkEmbedderOptions, AiSdkLlmOptions, AiSdkModule } from './ai-sdk.js';
export { createAiSdkEmbedder, createAiSdkLlm } from './ai-sdk.js';
export type { HashingEmbedderOptions } from './hashing-embedder.js';
export { createHashingEmbedder } from './hashing-embedder.js';
export type { HttpClientOptions } from './http.js';
export type { OfflineEmbedderOptions } from './offline/embedder.js';
export { createOfflineEmbedder } from './offline/embedder.js';
export type { OpenAICompatibleEmbedderOptions, OpenAICompatibleLlmOptions } from './openai-compatible.js';
export { createOpenAICompatibleEmbedder, createOpenAICompatibleLlm } from './openai-compatible.js';
