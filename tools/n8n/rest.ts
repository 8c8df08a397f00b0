/**
 * A client of n8n's REST API as the editor uses it: log in as the owner (cookie auth tied to a
 * browser id), run workflows from their trigger, read and wait for executions, publish.
 */
import { randomUUID } from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import type { N8nRun } from './run-data';

export interface HttpResponse<T = unknown> {
	status: number;
	headers: Headers;
	body: T;
	text: string;
}

/** An execution as the REST API returns it, with `data` (flatted in the API) decoded. */
export interface RestExecution {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	workflowId: string;
	startedAt?: string;
	stoppedAt?: string | null;
	/** Same shape as N8nRun['data']. */
	data?: N8nRun['data'];
	[key: string]: unknown;
}

export interface N8nRestClient {
	baseUrl: string;
	owner: { email: string; password: string };
	/** POST /rest/login as the env's owner; returns the Cookie header value (`n8n-auth=…`). */
	login(): Promise<string>;
	/** A REST call (JSON). Sends the fixed browser-id header n8n ties its auth cookie to. */
	request<T = unknown>(
		method: string,
		urlPath: string,
		options?: { cookie?: string; body?: unknown; timeoutMs?: number },
	): Promise<HttpResponse<T>>;
	getWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
	/**
	 * Run a workflow as the editor's "Execute workflow" button does, from the named trigger node:
	 * POST /rest/workflows/<id>/run {"triggerToStartFrom":{"name":…}} (n8n 2.41.1 runs the stored
	 * workflow; n8n 1.x needs it as `workflowData`, read first), then waits for the execution and returns it with data.
	 * For a polling trigger n8n calls poll() once with getMode() === 'manual'; static data changed
	 * by that poll is NOT saved (manual runs never persist it), so every such run starts from the
	 * same state. If poll() returns null the run succeeds with no trigger output and the nodes after
	 * it do not run. If poll() throws, status is 'error' and data.resultData.error says why.
	 * (For mode 'trigger' with persisted static data, use activateWorkflow/publishWorkflow.)
	 */
	runWorkflowFromTrigger(
		cookie: string,
		workflowId: string,
		triggerNodeName: string,
		options?: { timeoutMs?: number },
	): Promise<RestExecution>;
	getExecution(cookie: string, executionId: string): Promise<RestExecution>;
	waitForExecution(
		cookie: string,
		executionId: string,
		options?: { timeoutMs?: number },
	): Promise<RestExecution>;
	/** Executions of a workflow, newest first (summaries: no `data`). */
	listExecutions(cookie: string, workflowId: string): Promise<RestExecution[]>;
	/**
	 * Wait until the workflow has at least `count` finished executions (of `mode`, e.g. 'trigger'
	 * for activation polls or 'manual', if given); returns them newest first, with data.
	 */
	waitForExecutions(
		cookie: string,
		workflowId: string,
		count: number,
		options?: { timeoutMs?: number; mode?: string },
	): Promise<RestExecution[]>;
	/**
	 * Publish (activate) the current version in the running server: POST
	 * /rest/workflows/<id>/activate {versionId}. Its triggers register at once: a polling trigger
	 * polls immediately (mode 'trigger'; an execution is stored only if poll() returned data;
	 * static data is saved) and then on its schedule. Wait with waitForExecutions(…, {mode:'trigger'}).
	 */
	activateWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
	deactivateWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
}

/** A REST client of the n8n at `baseUrl`, logging in as `owner`. */
export function createRestClient(
	baseUrl: string,
	owner: { email: string; password: string },
	options: { n8nMajor?: 1 | 2 } = {},
): N8nRestClient {
	const browserId = randomUUID();

	const request = async <T = unknown>(
		method: string,
		urlPath: string,
		opts: { cookie?: string; body?: unknown; timeoutMs?: number } = {},
	): Promise<HttpResponse<T>> => {
		const headers: Record<string, string> = { 'browser-id': browserId, accept: 'application/json' };
		if (opts.cookie) headers.cookie = opts.cookie;
		if (opts.body !== undefined) headers['content-type'] = 'application/json';
		const res = await fetch(baseUrl + urlPath, {
			method,
			headers,
			body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
			signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
		});
		const text = await res.text();
		let body: unknown = text;
		try {
			body = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: res.status, headers: res.headers, body: body as T, text };
	};

	const restData = async <T>(
		method: string,
		urlPath: string,
		cookie: string,
		body?: unknown,
	): Promise<T> => {
		const res = await request<{ data: T }>(method, urlPath, { cookie, body });
		if (res.status < 200 || res.status >= 300) {
			throw new Error(`${method} ${urlPath} -> HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
		}
		return res.body.data;
	};

	const decodeExecution = (raw: Record<string, unknown>): RestExecution => {
		const exec = { ...raw } as RestExecution;
		if (typeof raw.data === 'string') exec.data = parseFlatted(raw.data) as N8nRun['data'];
		return exec;
	};

	const getExecution = async (cookie: string, executionId: string): Promise<RestExecution> =>
		decodeExecution(
			await restData<Record<string, unknown>>('GET', `/rest/executions/${executionId}`, cookie),
		);

	const isDone = (e: RestExecution) =>
		!['new', 'running', 'waiting', 'unknown'].includes(e.status) || e.finished;

	const waitForExecution = async (
		cookie: string,
		executionId: string,
		opts: { timeoutMs?: number } = {},
	): Promise<RestExecution> => {
		const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
		for (;;) {
			const res = await request<{ data: Record<string, unknown> }>(
				'GET',
				`/rest/executions/${executionId}`,
				{ cookie },
			);
			if (res.status === 200) {
				const exec = decodeExecution(res.body.data);
				if (isDone(exec) && exec.stoppedAt) return exec;
			} else if (res.status !== 404) {
				throw new Error(
					`GET /rest/executions/${executionId} -> HTTP ${res.status}: ${res.text.slice(0, 2000)}`,
				);
			}
			if (Date.now() > deadline)
				throw new Error(
					`execution ${executionId} not finished after ${opts.timeoutMs ?? 120_000} ms`,
				);
			await sleep(250);
		}
	};

	const listExecutions = async (cookie: string, workflowId: string): Promise<RestExecution[]> => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await restData<{ results: RestExecution[] }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=100`,
			cookie,
		);
		return data.results;
	};

	return {
		baseUrl,
		owner,
		request,
		async login() {
			const res = await request('POST', '/rest/login', {
				body: { emailOrLdapLoginId: owner.email, password: owner.password },
			});
			if (res.status !== 200)
				throw new Error(`login failed: HTTP ${res.status}: ${res.text.slice(0, 500)}`);
			const cookies = res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie') ?? ''];
			const auth = cookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
			if (!auth) throw new Error(`login: no n8n-auth cookie in ${JSON.stringify(cookies)}`);
			return auth;
		},
		async getWorkflow(cookie, workflowId) {
			return await restData<Record<string, unknown>>(
				'GET',
				`/rest/workflows/${workflowId}`,
				cookie,
			);
		},
		async runWorkflowFromTrigger(cookie, workflowId, triggerNodeName, opts = {}) {
			// n8n 1.x runs the workflow sent in the body (the editor sends it); 2.x the stored one.
			const workflowData =
				options.n8nMajor === 1
					? await restData<Record<string, unknown>>('GET', `/rest/workflows/${workflowId}`, cookie)
					: undefined;
			const result = await restData<{ executionId?: string; waitingForWebhook?: boolean }>(
				'POST',
				`/rest/workflows/${workflowId}/run`,
				cookie,
				{
					triggerToStartFrom: { name: triggerNodeName },
					...(workflowData ? { workflowData } : {}),
				},
			);
			if (!result?.executionId) {
				throw new Error(
					`run of workflow ${workflowId} from "${triggerNodeName}" did not start an execution: ${JSON.stringify(result)}` +
						(result?.waitingForWebhook
							? ' (the trigger waits for a webhook call: not a polling trigger)'
							: ''),
				);
			}
			return await waitForExecution(cookie, result.executionId, opts);
		},
		getExecution,
		waitForExecution,
		listExecutions,
		async waitForExecutions(cookie, workflowId, count, opts = {}) {
			const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
			for (;;) {
				const done = (await listExecutions(cookie, workflowId)).filter(
					(e) => isDone(e) && e.stoppedAt && (opts.mode === undefined || e.mode === opts.mode),
				);
				if (done.length >= count) {
					return await Promise.all(done.map((e) => getExecution(cookie, String(e.id))));
				}
				if (Date.now() > deadline) {
					throw new Error(
						`workflow ${workflowId}: ${done.length} of ${count} executions finished after ${opts.timeoutMs ?? 120_000} ms`,
					);
				}
				await sleep(500);
			}
		},
		async activateWorkflow(cookie, workflowId) {
			const wf = await restData<{ versionId: string }>(
				'GET',
				`/rest/workflows/${workflowId}`,
				cookie,
			);
			return await restData<Record<string, unknown>>(
				'POST',
				`/rest/workflows/${workflowId}/activate`,
				cookie,
				{
					versionId: wf.versionId,
				},
			);
		},
		async deactivateWorkflow(cookie, workflowId) {
			return await restData<Record<string, unknown>>(
				'POST',
				`/rest/workflows/${workflowId}/deactivate`,
				cookie,
				{},
			);
		},
	};
}

/**
 * Decode n8n's `flatted` serialisation (used for execution data in the REST API): a JSON array
 * whose first entry is the root; inside objects/arrays every string is an index (as a string)
 * into that array, so shared and circular references survive.
 */
export function parseFlatted(text: string): unknown {
	const input = JSON.parse(text) as unknown[];
	const done = new Map<number, unknown>();
	const resolve = (index: number): unknown => {
		if (done.has(index)) return done.get(index);
		const value = input[index];
		if (value === null || typeof value !== 'object') return value;
		const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
		done.set(index, out);
		for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
			(out as Record<string, unknown>)[k] = typeof v === 'string' ? resolve(Number(v)) : v;
		}
		return out;
	};
	return resolve(0);
}
