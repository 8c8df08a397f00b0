/**
 * A scripted OpenAI-compatible chat-completions server on loopback, for running n8n's AI Agent
 * with the OpenAI Chat Model node without any network: point the `openAiApi` credential's Base
 * URL at `server.baseUrl` (it ends in `/v1`, like OpenAI's). Node built-ins only.
 *
 *   const ai = await startFakeOpenAi({ apiKey: 'sk-test', respond: (req) => ... });
 *   // respond() sees the request (messages, tools) and returns a text or tool calls:
 *   //   { text: 'Done.' }   or   { toolCalls: [{ name: 'Get_Open_Orders', arguments: { symbol: 'BTCUSDT' } }] }
 *   ai.requests;  // every request, parsed
 *   await ai.stop();
 *
 * Endpoints (under /v1): POST /chat/completions (JSON, or server-sent events when `stream: true`),
 * GET /models. Anything else, e.g. the Responses API (POST /responses), gets 404 with an
 * OpenAI-style error that says so. A wrong or missing `Authorization: Bearer <apiKey>` gets 401.
 * An exception in respond() gets a 500 whose message names it, and is kept in `errors`.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One message of a chat-completions request (the fields the tests read). */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | string;
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	name?: string;
}

export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

export interface ToolCall {
	name: string;
	/** Sent to the model's caller as a JSON string. */
	arguments: Record<string, unknown>;
}

/** What the scripted model answers: a final text, or tool calls (with an optional text). */
export type ChatReply = { text: string } | { toolCalls: ToolCall[]; text?: string };

export interface RecordedRequest {
	method: string;
	path: string;
	authorization: string | undefined;
	/** Parsed JSON body (undefined for GET or a body that is not JSON). */
	body: unknown;
	status: number;
}

export interface FakeOpenAiOptions {
	/** The answer to each chat-completions request. */
	respond: (request: ChatRequest, index: number) => ChatReply | Promise<ChatReply>;
	/** Required bearer token (default: any). */
	apiKey?: string;
	/** Models listed by GET /v1/models (default: the one the tests use). */
	models?: string[];
	/** Default 0 (a free port). */
	port?: number;
}

export interface FakeOpenAi {
	/** `http://127.0.0.1:<port>/v1`: the Base URL for the credential. */
	baseUrl: string;
	requests: RecordedRequest[];
	/** The chat-completions requests, parsed, in order. */
	chatRequests: ChatRequest[];
	/** Errors thrown by respond() (each also answered with a 500). */
	errors: Error[];
	stop(): Promise<void>;
}

export const FAKE_MODEL = 'gpt-4.1-mini';

/** The text of a message's content (a string, or the text parts of a content array). */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content))
		return message.content.map((part) => part.text ?? '').join('');
	return '';
}

/** The tool results in a request: each `tool` message with the name of the tool call it answers. */
export function toolResults(
	request: ChatRequest,
): Array<{ name: string; arguments: Record<string, unknown>; content: string }> {
	const calls = new Map<string, { name: string; arguments: string }>();
	for (const message of request.messages) {
		for (const call of message.tool_calls ?? []) calls.set(call.id, call.function);
	}
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) => {
			const call = calls.get(message.tool_call_id ?? '');
			let args: Record<string, unknown> = {};
			try {
				args = JSON.parse(call?.arguments ?? '{}') as Record<string, unknown>;
			} catch {
				/* not JSON: left empty */
			}
			return {
				name: call?.name ?? message.name ?? '',
				arguments: args,
				content: messageText(message),
			};
		});
}

export async function startFakeOpenAi(options: FakeOpenAiOptions): Promise<FakeOpenAi> {
	const requests: RecordedRequest[] = [];
	const chatRequests: ChatRequest[] = [];
	const errors: Error[] = [];
	const sockets = new Set<Socket>();
	let sequence = 0;

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: unknown;
			try {
				body = text === '' ? undefined : JSON.parse(text);
			} catch {
				body = undefined;
			}
			const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
			const record: RecordedRequest = {
				method: req.method ?? '',
				path,
				authorization: req.headers.authorization,
				body,
				status: 0,
			};
			requests.push(record);
			const send = (status: number, payload: unknown) => {
				record.status = status;
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(payload));
			};
			const fail = (status: number, message: string, type: string) =>
				send(status, { error: { message, type, param: null, code: null } });

			if (
				options.apiKey !== undefined &&
				req.headers.authorization !== `Bearer ${options.apiKey}`
			) {
				fail(401, 'Incorrect API key provided.', 'invalid_request_error');
				return;
			}
			if (req.method === 'GET' && path === '/v1/models') {
				const created = Math.floor(Date.now() / 1000);
				send(200, {
					object: 'list',
					data: (options.models ?? [FAKE_MODEL]).map((id) => ({
						id,
						object: 'model',
						created,
						owned_by: 'fake',
					})),
				});
				return;
			}
			if (req.method !== 'POST' || path !== '/v1/chat/completions') {
				fail(
					404,
					`The fake OpenAI server only answers POST /v1/chat/completions and GET /v1/models, not ${req.method} ${path} (turn the model's Responses API off)`,
					'invalid_request_error',
				);
				return;
			}
			const request = body as ChatRequest | undefined;
			if (!request || !Array.isArray(request.messages)) {
				fail(400, 'The body must be a JSON object with messages.', 'invalid_request_error');
				return;
			}
			const index = chatRequests.length;
			chatRequests.push(request);
			void (async () => {
				let reply: ChatReply;
				try {
					reply = await options.respond(request, index);
				} catch (error) {
					const err = error instanceof Error ? error : new Error(String(error));
					errors.push(err);
					fail(
						500,
						`The scripted model failed on request ${index}: ${err.message}`,
						'server_error',
					);
					return;
				}
				const id = `chatcmpl-fake-${++sequence}`;
				const toolCalls =
					'toolCalls' in reply
						? reply.toolCalls.map((call, i) => ({
								id: `call_${sequence}_${i}`,
								type: 'function' as const,
								function: { name: call.name, arguments: JSON.stringify(call.arguments) },
							}))
						: [];
				const content = reply.text ?? (toolCalls.length > 0 ? null : '');
				const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
				const promptTokens = JSON.stringify(request.messages).length >> 2;
				const completionTokens = (JSON.stringify(toolCalls).length + (content ?? '').length) >> 2;
				const usage = {
					prompt_tokens: promptTokens,
					completion_tokens: completionTokens,
					total_tokens: promptTokens + completionTokens,
				};
				const created = Math.floor(Date.now() / 1000);
				const model = request.model;
				if (request.stream === true) {
					record.status = 200;
					res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
					const event = (
						delta: Record<string, unknown>,
						finish: string | null,
						extra: Record<string, unknown> = {},
					) =>
						res.write(
							`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
						);
					event({ role: 'assistant', content: content === null ? null : '' }, null);
					if (content) event({ content }, null);
					toolCalls.forEach((call, i) => event({ tool_calls: [{ index: i, ...call }] }, null));
					event({}, finishReason);
					const streamOptions = request.stream_options as { include_usage?: boolean } | undefined;
					if (streamOptions?.include_usage)
						res.write(
							`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`,
						);
					res.end('data: [DONE]\n\n');
					return;
				}
				send(200, {
					id,
					object: 'chat.completion',
					created,
					model,
					choices: [
						{
							index: 0,
							message: {
								role: 'assistant',
								content,
								...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
							},
							finish_reason: finishReason,
						},
					],
					usage,
				});
			})();
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		chatRequests,
		errors,
		stop: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			}),
	};
}
