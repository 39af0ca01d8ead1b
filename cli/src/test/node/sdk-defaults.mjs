// The official OpenAI Node SDK at its defaults against a gateway: node sdk-defaults.mjs BASE_URL MODEL ADAPTER
// Prints one JSON line of what it saw; OpenAiNodeSdkTest asserts on it.
import OpenAI from 'openai';

const [baseURL, model, adapter] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 20000 });

// embeddings: the SDK asks for base64 unless told otherwise, and decodes it
const byDefault = (await client.embeddings.create({ model, input: 'one' })).data[0].embedding;
const floats = (await client.embeddings.create({ model, input: 'one', encoding_format: 'float' })).data[0].embedding;

// a streamed Responses API call
const events = [];
let text = '';
let completed = null;
const stream = await client.responses.create({ model: adapter, input: 'hello', max_output_tokens: 4, stream: true });
for await (const event of stream) {
  events.push(event.type);
  if (event.type === 'response.output_text.delta') text += event.delta;
  if (event.type === 'response.completed') completed = event.response;
}

console.log(JSON.stringify({
  embeddingLength: byDefault.length,
  embeddingNorm: byDefault.reduce((s, x) => s + x * x, 0),
  sameAsFloats: byDefault.length === floats.length && byDefault.every((x, i) => Math.abs(x - floats[i]) < 1e-6),
  events,
  text,
  completedText: completed?.output?.[0]?.content?.[0]?.text ?? null,
  completedModel: completed?.model ?? null,
  outputTokens: completed?.usage?.output_tokens ?? null,
}));
