import { readFileSync } from "node:fs";
import path from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { ByteLevelDecoder } from "./byte-level-decode";
import { plainBpeCache, speedUpByteLevel } from "./byte-level-encode";
import { fastEncoder, UnknownPiece } from "./fast-encode";

/** A wire-format chat message, as chat templates read them. */
export interface TemplateMessage {
  role: string;
  content: string;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A stand-in assistant reply: its rendering marks where the sampled tokens of the real one ended. */
const MARKER = "rlenv-turn-end-7f3a9c";

/**
 * A model's own chat template and tokenizer, from its folder (tokenizer_config.json, tokenizer.json),
 * rendered with @huggingface/jinja and tokenised with @huggingface/tokenizers (both pure JS). Only
 * new messages are ever rendered: what the policy sampled stays as it was sampled.
 */
export class ChatTokenizer {
  readonly eosToken: string;
  readonly eosId: number | undefined;
  private readonly template: Template;
  private readonly tokenizer: Tokenizer;
  private readonly special: Record<string, string>;
  private readonly fastDecoder: ByteLevelDecoder | undefined;
  private readonly fastEncode: ((text: string) => number[]) | undefined;
  /**
   * For the last tool list seen (as JSON): whether it changes what follows an assistant turn. Most
   * templates print tools in the system block only, and rendering them is a good part of a turn's cost.
   */
  private toolsInTail: { key: string; matters: boolean } | undefined;

  constructor(readonly dir: string) {
    const configFile = path.join(dir, "tokenizer_config.json");
    const config = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
    const tpl = config.chat_template;
    if (typeof tpl !== "string") throw new Error(`${configFile}: chat_template: expected the template text (a string)`);
    this.template = new Template(tpl);
    const json = JSON.parse(readFileSync(path.join(dir, "tokenizer.json"), "utf8")) as unknown;
    this.tokenizer = new Tokenizer(json as ConstructorParameters<typeof Tokenizer>[0], config);
    speedUpByteLevel(this.tokenizer);
    plainBpeCache(this.tokenizer);
    this.fastEncode = fastEncoder(this.tokenizer, json);
    this.fastDecoder = ByteLevelDecoder.fromTokenizerJson(json, config.clean_up_tokenization_spaces as boolean | undefined);
    const tokenText = (v: unknown): string => (typeof v === "string" ? v : ((v as { content?: string } | null)?.content ?? ""));
    this.eosToken = tokenText(config.eos_token);
    this.special = { bos_token: tokenText(config.bos_token), eos_token: this.eosToken };
    const eos = this.eosToken ? this.encode(this.eosToken) : [];
    this.eosId = eos.length === 1 ? eos[0] : undefined;
  }

  encode(text: string): number[] {
    if (this.fastEncode)
      try {
        return this.fastEncode(text);
      } catch (e) {
        if (!(e instanceof UnknownPiece)) throw e;
      }
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    if (ids.length === 0) return "";
    return this.fastDecoder?.decode(ids) ?? this.tokenizer.decode([...ids], { skip_special_tokens: false });
  }

  render(messages: readonly TemplateMessage[], tools: readonly unknown[] | undefined, generation: boolean): string {
    return this.template.render({
      messages,
      ...(tools && tools.length > 0 ? { tools } : {}),
      add_generation_prompt: generation,
      ...this.special,
    });
  }

  /** The first prompt: the whole conversation so far, with the generation prompt. */
  firstPrompt(messages: readonly TemplateMessage[], tools: readonly unknown[]): number[] {
    return this.encode(this.render(messages, tools, true));
  }

  /**
   * The tokens that follow a sampled assistant turn: the template's glue after its end token, the
   * new messages (tool results, user turns) and the generation prompt. Rendered after a stand-in
   * conversation that ends in an assistant turn, and cut right after that turn's end token.
   */
  continuation(newMessages: readonly TemplateMessage[], tools: readonly unknown[]): number[] {
    const key = tools.length > 0 ? JSON.stringify(tools) : "";
    if (key === "") return this.encode(this.tail(newMessages, tools));
    if (this.toolsInTail?.key !== key) {
      // Checked once per tool list, on a real turn: the tail with and without the tools.
      const withTools = this.tail(newMessages, tools);
      this.toolsInTail = { key, matters: withTools !== this.tail(newMessages, []) };
      return this.encode(withTools);
    }
    return this.encode(this.tail(newMessages, this.toolsInTail.matters ? tools : []));
  }

  private tail(newMessages: readonly TemplateMessage[], tools: readonly unknown[]): string {
    const base: TemplateMessage[] = [
      { role: "user", content: "." },
      { role: "assistant", content: MARKER },
    ];
    const text = this.render([...base, ...newMessages], tools, true);
    const at = text.lastIndexOf(MARKER);
    const end = this.eosToken ? text.indexOf(this.eosToken, at) : -1;
    if (at < 0 || end < 0)
      throw new Error(`${this.dir}: the chat template does not end an assistant turn with ${this.eosToken || "an eos token"}`);
    return text.slice(end + this.eosToken.length);
  }
}
