import {
  type Content,
  type FunctionDeclaration,
  type GenerateContentConfig,
  type Part,
  type ThinkingConfig,
  ThinkingLevel,
} from '@google/genai';
import { type AdaptedRequest, adaptRequest } from '../adapt.ts';
import { type ModelRecord, wireModelName } from '../model-record.ts';
import type { ChatRequest, Message, ReasoningEffort, ToolSpec } from '../types.ts';

export interface GeminiRequest {
  model: string;
  contents: Content[];
  /** Without the abort signal, which is the call's. */
  config: GenerateContentConfig;
  /** Wire-level changes beyond `adaptRequest`'s, in the same one-line form. */
  notes: string[];
}

/**
 * The `generateContent` parameters the client sends for `req` on `model`, the one builder for ordinary
 * calls and batch requests alike: adapted to the model, then `toGeminiRequest`; `notes` lists every change.
 * A request of system messages only is refused with the message to show.
 */
export function geminiRequestFor(
  model: ModelRecord,
  req: ChatRequest,
): ({ ok: true } & GeminiRequest) | { ok: false; message: string } {
  const adapted = adaptRequest(model, req);
  const wire = toGeminiRequest(adapted);
  if (wire.contents.length === 0)
    return {
      ok: false,
      message: 'the request has only system messages; Gemini needs at least one user message.',
    };
  return { ok: true, ...wire, notes: [...adapted.adapted, ...wire.notes] };
}

/**
 * The `generateContent` parameters for an adapted request: system messages in `systemInstruction`, tool
 * schemas as `functionDeclarations`, the output cap and temperature in the config, and a reasoning effort as
 * a thinking budget (Gemini 2.5) or level (Gemini 3). Pure.
 */
export function toGeminiRequest(req: AdaptedRequest): GeminiRequest {
  const model = wireModelName(req.model);
  const notes: string[] = [];
  const { systemInstruction, contents, placeholders } = toGeminiContents(req.messages, isGemini3(model));
  if (placeholders > 0)
    notes.push(
      `${placeholders} tool-call turn(s) without a Gemini thought signature sent with the placeholder signature`,
    );
  const config: GenerateContentConfig = {
    maxOutputTokens: req.maxTokens,
    // The SDK would otherwise re-request a broken stream on its own; retries are the layer's.
    automaticContinuation: false,
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(systemInstruction ? { systemInstruction: { parts: [{ text: systemInstruction }] } } : {}),
    ...(req.tools ? { tools: [{ functionDeclarations: req.tools.map(toFunctionDeclaration) }] } : {}),
    ...(req.reasoning ? { thinkingConfig: thinkingConfig(model, req.reasoning, req.maxTokens, notes) } : {}),
  };
  return { model, contents, config, notes };
}

function isGemini3(model: string): boolean {
  return /^gemini-3/.test(model);
}

/**
 * Lets Gemini 3 accept tool calls it did not make itself (another model's, or an edited transcript's): the
 * API documents this value for function calls that have no signature of their own.
 */
export const PLACEHOLDER_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

const SIGNATURE_MARK = '#ts=';

/**
 * A tool call's normalized id carries Gemini's `thoughtSignature` (which must go back with that call in
 * later turns), so a caller that only keeps the normalized messages still sends it back.
 */
export function encodeCallId(id: string, thoughtSignature?: string): string {
  return thoughtSignature ? `${id}${SIGNATURE_MARK}${thoughtSignature}` : id;
}

export function decodeCallId(id: string): { id: string; thoughtSignature?: string } {
  const at = id.indexOf(SIGNATURE_MARK);
  if (at < 0) return { id };
  return { id: id.slice(0, at), thoughtSignature: id.slice(at + SIGNATURE_MARK.length) };
}

/**
 * Normalized messages → Gemini `contents`: assistant messages are `model` turns with `functionCall` parts;
 * consecutive tool results (and a user text after them) share one `user` turn of `functionResponse` parts,
 * which Gemini pairs with the calls by name and order. With `placeholders`, a turn of calls without any
 * signature gets the placeholder on its first call (Gemini 3 rejects it otherwise).
 */
export function toGeminiContents(
  messages: readonly Message[],
  placeholders: boolean,
): { systemInstruction?: string; contents: Content[]; placeholders: number } {
  const system: string[] = [];
  const contents: Content[] = [];
  let placed = 0;
  const push = (role: 'user' | 'model', parts: Part[]) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts!.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        push('user', [{ text: m.content }]);
        break;
      case 'assistant': {
        const calls: Part[] = (m.toolCalls ?? []).map((call) => {
          const { thoughtSignature } = decodeCallId(call.id);
          return {
            functionCall: { name: call.name, args: call.input },
            ...(thoughtSignature ? { thoughtSignature } : {}),
          };
        });
        if (placeholders && calls.length > 0 && !calls.some((p) => p.thoughtSignature)) {
          calls[0]!.thoughtSignature = PLACEHOLDER_THOUGHT_SIGNATURE;
          placed++;
        }
        // Gemini rejects empty text parts; an empty assistant message carries nothing to send.
        const parts: Part[] = [...(m.content ? [{ text: m.content }] : []), ...calls];
        if (parts.length > 0) push('model', parts);
        break;
      }
      case 'tool':
        push('user', [{ functionResponse: { name: m.name, response: toolResponse(m.content) } }]);
        break;
    }
  }
  return {
    ...(system.length > 0 ? { systemInstruction: system.join('\n\n') } : {}),
    contents,
    placeholders: placed,
  };
}

/** A tool result that is a JSON object goes as that object; any other text as `{result: text}`. */
function toolResponse(content: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(content);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // plain text
  }
  return { result: content };
}

/** `parametersJsonSchema` takes JSON Schema as is, except the `$schema` keyword (a 400 "Unknown name"). */
function toFunctionDeclaration(tool: ToolSpec): FunctionDeclaration {
  const { $schema: _, ...schema } = tool.inputSchema;
  return { name: tool.name, description: tool.description, parametersJsonSchema: schema };
}

/** Gemini 2.5 thinking budgets per effort, in tokens (2.5 Pro takes 128-32768, Flash 0-24576). */
export const THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 24_576,
};

const THINKING_LEVEL: Readonly<Record<ReasoningEffort, ThinkingLevel>> = {
  minimal: ThinkingLevel.MINIMAL,
  low: ThinkingLevel.LOW,
  medium: ThinkingLevel.MEDIUM,
  high: ThinkingLevel.HIGH,
};

/**
 * Gemini 3 takes a thinking level (the registry's `reasoningEfforts` has already moved the effort to one
 * the model takes). Earlier models take a token budget, kept to half of the output cap at most because
 * thinking tokens count against `maxOutputTokens`.
 */
function thinkingConfig(
  model: string,
  effort: ReasoningEffort,
  maxTokens: number,
  notes: string[],
): ThinkingConfig {
  if (isGemini3(model)) {
    notes.push(`reasoning ${effort} sent as thinkingLevel ${THINKING_LEVEL[effort]}`);
    return { thinkingLevel: THINKING_LEVEL[effort] };
  }
  const wanted = THINKING_BUDGET[effort];
  const budget = Math.max(128, Math.min(wanted, Math.floor(maxTokens / 2)));
  notes.push(
    budget < wanted
      ? `reasoning ${effort} sent as thinkingBudget ${budget} (half of maxTokens ${maxTokens}, leaving room for the answer)`
      : `reasoning ${effort} sent as thinkingBudget ${budget}`,
  );
  return { thinkingBudget: budget };
}
