// The Vercel AI SDK's own requests run as an OpenAI batch: node sdk-batches.mjs BASE_URL MODEL
// The AI SDK has no batch call of its own: a team batches what its app sends, which for openai(model) is the Responses
// API. The requests are taken as the SDK sends them (and answered live), run as a batch with the OpenAI SDK's files and
// batches at their defaults, and read back; a file of another purpose is stored and refused as a batch's input.
// Prints one JSON line of what it saw; OpenAiNodeSdkTest asserts on it.
import OpenAI, { toFile } from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';

const [baseURL, model] = process.argv.slice(2);
const sent = [];
const capture = async (url, init) => {
  sent.push({ url: new URL(url).pathname, body: JSON.parse(init.body) });
  return fetch(url, init);
};
const ai = createOpenAI({ baseURL, apiKey: 'unused', fetch: capture });
const live = await generateText({ model: ai(model), prompt: 'Summarise routing in one line', maxOutputTokens: 4,
  maxRetries: 0 });
await generateText({ model: ai(model), system: 'Be brief.', prompt: 'hello', maxOutputTokens: 3, maxRetries: 0 });

const openai = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 20000 });
const jsonl = sent.map((s, i) => JSON.stringify({ custom_id: `ai-${i}`, method: 'POST', url: s.url, body: s.body }))
  .join('\n') + '\n';
const input = await openai.files.create({ file: await toFile(Buffer.from(jsonl), 'ai-sdk.jsonl'), purpose: 'batch' });
let batch = await openai.batches.create({ input_file_id: input.id, endpoint: sent[0].url, completion_window: '24h' });
const deadline = Date.now() + 45000;
while (!['completed', 'failed', 'expired', 'cancelled'].includes(batch.status) && Date.now() < deadline) {
  await new Promise(r => setTimeout(r, 200));
  batch = await openai.batches.retrieve(batch.id);
}
const output = batch.output_file_id ? await (await openai.files.content(batch.output_file_id)).text() : '';
const errors = batch.error_file_id ? await (await openai.files.content(batch.error_file_id)).text() : '';
const answers = output.split('\n').filter(l => l.trim()).map(l => JSON.parse(l)).map(l => ({
  customId: l.custom_id,
  status: l.response?.status_code ?? null,
  object: l.response?.body?.object ?? null,
  model: l.response?.body?.model ?? null,
  text: l.response?.body?.output?.find(o => o.type === 'message')?.content?.[0]?.text ?? null,
}));

const image = await openai.files.create({ file: await toFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff]), 'a.png'),
  purpose: 'user_data' });
let refused = null;
try {
  await openai.batches.create({ input_file_id: image.id, endpoint: '/v1/responses', completion_window: '24h' });
} catch (e) {
  refused = { status: e.status, param: e.param ?? e.error?.param ?? null, message: e.message };
}

console.log(JSON.stringify({
  liveText: live.text,
  urls: sent.map(s => s.url),
  status: batch.status,
  counts: batch.request_counts,
  answers,
  firstError: errors.split('\n')[0] || null,
  imagePurpose: image.purpose,
  imageBytes: image.bytes,
  refused,
}));
