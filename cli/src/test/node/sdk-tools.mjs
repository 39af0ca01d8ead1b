// Three SDKs at their defaults against a gateway whose pods answer like vLLM with --enable-auto-tool-choice:
// node sdk-tools.mjs BASE_URL MODEL. Prints one JSON line of what each saw; SdkToolsAndSchemasTest asserts on it.
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { ChatOpenAI } from '@langchain/openai';
import { tool as langchainTool } from '@langchain/core/tools';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, tool, stepCountIs } from 'ai';
import { z } from 'zod';

const [baseURL, model] = process.argv.slice(2);
const seen = {};
const Weather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']), days: z.number().int().min(1).max(7) });
const Joke = z.object({ setup: z.string(), punchline: z.string(), rating: z.number().min(1).max(10) });

// the OpenAI Node SDK: a tool round trip, then structured output parsed by its zod helper
const openai = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 20000 });
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'the weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }];
const messages = [{ role: 'user', content: 'What is the weather in Oslo?' }];
const first = await openai.chat.completions.create({ model, messages, tools });
const call = first.choices[0].message.tool_calls?.[0];
seen.openaiFinish = first.choices[0].finish_reason;
seen.openaiCallArgs = call ? JSON.parse(call.function.arguments) : null;
messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' });
const second = await openai.chat.completions.create({ model, messages, tools });
seen.openaiAnswer = second.choices[0].message.content;
const parsed = await openai.chat.completions.parse({ model, messages: [{ role: 'user', content: 'forecast' }],
  response_format: zodResponseFormat(Weather, 'weather') });
seen.openaiParsed = parsed.choices[0].message.parsed;

// LangChain JS: withStructuredOutput and bound tools
const chat = new ChatOpenAI({ model, apiKey: 'unused', maxRetries: 0, configuration: { baseURL } });
seen.langchainStructured = await chat.withStructuredOutput(Joke).invoke('Tell me a joke about routers');
const weatherTool = langchainTool(async ({ city }) => `sunny in ${city}`, { name: 'get_weather',
  description: 'the weather in a city', schema: z.object({ city: z.string() }) });
const withTools = await chat.bindTools([weatherTool]).invoke('What is the weather in Lima?');
seen.langchainToolCalls = withTools.tool_calls.map(c => ({ name: c.name, args: c.args }));

// the Vercel AI SDK: generateObject, and a tool round trip generateText runs itself
const provider = createOpenAI({ baseURL, apiKey: 'unused' });
const object = await generateObject({ model: provider(model), schema: Joke, prompt: 'a joke', maxRetries: 0 });
seen.aiObject = object.object;
let executed = null;
const text = await generateText({ model: provider(model), maxRetries: 0, prompt: 'What is the weather in Rome?',
  stopWhen: stepCountIs(3),
  tools: { get_weather: tool({ description: 'the weather in a city', inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => { executed = city; return `sunny in ${city}`; } }) } });
seen.aiExecuted = executed;
seen.aiSteps = text.steps.length;
seen.aiText = text.text;

console.log(JSON.stringify(seen));
