// Common English function words: dropped from lexical queries (BM25 gives them little weight, but
// in an OR query they still pull in thousands of candidates) and from offline sentence embeddings.
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'after', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'been', 'before',
  'being', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'for', 'from', 'had', 'has', 'have',
  'having', 'he', 'shall', 'should', 'may', 'might', 'must', 'her', 'hers', 'him', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'me', 'my',
  'of', 'on', 'or', 'our', 'she', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'them', 'then',
  'there', 'these', 'they', 'this', 'those', 'to', 'us', 'was', 'we', 'were', 'what', 'when', 'where',
  'which', 'who', 'whom', 'why', 'will', 'with', 'would', 'you', 'your',
]);
