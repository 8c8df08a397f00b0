/**
 * Secret hygiene and tamper resistance.
 *
 * - The secret key never appears in anything the node produces (items, errors, descriptions, run
 *   data, console output) nor in anything it sends, in success and in every failure mode.
 * - A request the node signed, with one parameter changed after signing (or one added, dropped
 *   or moved, or the body altered), is rejected by the sandbox with 0002 (the family's invalid
 *   signature) and changes nothing.
 */
import type { IDataObject } from 'n8n-workflow';

import type { LedgerRequest } from '../../sandbox';
import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../../sandbox';
import { DEMO_ED25519_PRIVATE_KEY, DEMO_ED25519_PUBLIC_KEY } from '../../sandbox/constants';
import { rawRequest, type RawResponse } from '../../sandbox/testClient';
import { runTradingService } from '../../tools/harness/node';
import { useSandbox } from '../support/sandbox';
import {
	HOUR,
	PATHS,
	SECRETS,
	newTally,
	requestText,
	runAndTally,
	secretIn,
	type Tally,
} from './lib';

// The hygiene modes run the node at the documented request rates: a few minutes of runs, paced.
jest.setTimeout(180_000);

/** The order lookup (query-order endpoint) that settles an order's unknown outcome. */
const QUERY_ORDER = '/api/v1/spot/order';

// The tampered-signature replays: 200 raw requests sent as fast as they go, about signatures,
// not the node's pace (the node's own runs in this file use sandboxes at the documented rates).
const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const tally: Tally = newTally();

const now = Date.now();
const historyParameters = {
	resource: 'account',
	operation: 'getHistory',
	flowType: 32,
	startTime: new Date(now - 3 * HOUR).toISOString(),
	endTime: new Date(now + HOUR).toISOString(),
	limit: 20,
};
const transferParameters = {
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.custody,
	coin: 'USDT',
	quantity: '1.5',
};
const orderParameters = {
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '100',
	quantity: '0.25',
};
const manyParameters = {
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: JSON.stringify([
		{ symbol: 'ETHUSDT', side: 'SELL', type: 'LIMIT', price: '4000', quantity: '0.5' },
		{ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', amount: '20' },
	]),
};
const ALL_OPERATIONS = [historyParameters, transferParameters, orderParameters, manyParameters];

/** Everything written to the console or the process streams while `work` runs. */
async function captureOutput(work: () => Promise<void>): Promise<string> {
	const written: string[] = [];
	const streams = [process.stdout, process.stderr] as const;
	const originals = streams.map((stream) => stream.write.bind(stream));
	const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'] as const;
	const originalConsole = consoleMethods.map((method) => console[method]);
	streams.forEach((stream) => {
		stream.write = ((chunk: unknown, ...rest: unknown[]) => {
			written.push(String(chunk));
			return (originals[streams.indexOf(stream)] as (...args: unknown[]) => boolean)(
				chunk,
				...rest,
			);
		}) as typeof stream.write;
	});
	consoleMethods.forEach((method) => {
		console[method] = (...args: unknown[]) => written.push(args.map(String).join(' '));
	});
	try {
		await work();
	} finally {
		streams.forEach((stream, index) => (stream.write = originals[index] as typeof stream.write));
		consoleMethods.forEach((method, index) => (console[method] = originalConsole[index]));
	}
	return written.join('\n');
}

describe('the secret check (secretIn) itself', () => {
	const pemLines = (pem: string) =>
		pem.split('\n').filter((line) => /^[A-Za-z0-9+/=]+$/.test(line));
	const ed25519 = DEMO_KEYS.ed25519.secret;

	it('catches a PEM private key in JSON text, whole (line breaks escaped) or one leaked line alone', () => {
		expect(ed25519).toBe(DEMO_ED25519_PRIVATE_KEY);
		const whole = JSON.stringify({ error: `bad key ${DEMO_ED25519_PRIVATE_KEY}` });
		expect(whole.includes(ed25519)).toBe(false); // what a whole-text match would have missed
		expect(secretIn(whole)).toBe(ed25519);
		const [line] = pemLines(DEMO_ED25519_PRIVATE_KEY);
		expect(line.length).toBeGreaterThan(40);
		expect(secretIn(JSON.stringify({ items: [{ json: { note: `…${line}…` } }] }))).toBe(ed25519);
		expect(secretIn(`GET /api/v1/account?key=${encodeURIComponent(line)}`)).toBe(ed25519);
	});

	it('flags neither the armour lines nor the public key of the pair; plain secrets as before', () => {
		expect(
			secretIn(JSON.stringify('-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n')),
		).toBeUndefined();
		expect(secretIn(JSON.stringify({ publicKey: DEMO_ED25519_PUBLIC_KEY }))).toBeUndefined();
		expect(secretIn(JSON.stringify({ message: `x${DEMO_KEYS.master.secret}x` }))).toBe(
			DEMO_KEYS.master.secret,
		);
		expect(secretIn(DEMO_KEYS.master.secret.slice(0, -1))).toBeUndefined();
		expect(SECRETS).toContain(ed25519);
	});
});

describe('the secret never appears', () => {
	it('in outputs, errors, descriptions, run data, console output or requests, in success and every failure mode', async () => {
		const isWrite = (operation: unknown) => operation !== 'getHistory';
		type Mode = {
			name: string;
			setup?: (modeSandbox: Sandbox) => void;
			credentials?: (modeSandbox: Sandbox) => IDataObject;
			fails: (operation: unknown) => boolean;
			only?: unknown[];
		};
		const always = () => true;
		const modes: Mode[] = [
			{ name: 'success', fails: () => false },
			{
				name: 'wrong secret (0002)',
				credentials: () => ({ secretKey: `${DEMO_KEYS.master.secret}-old` }),
				fails: always,
			},
			{
				name: 'secret of another key',
				credentials: () => ({ secretKey: DEMO_KEYS.sub.secret }),
				fails: always,
			},
			{
				name: 'unknown API key (0102)',
				credentials: () => ({ apiKey: 'not-a-key' }),
				fails: always,
			},
			{
				name: 'read-only key (-1005)',
				credentials: () => ({
					apiKey: DEMO_KEYS.readOnly.apiKey,
					secretKey: DEMO_KEYS.readOnly.secret,
				}),
				fails: isWrite,
			},
			{
				name: 'clock outside the window (-1021)',
				setup: (modeSandbox) => modeSandbox.setFaults({ clockOffsetMs: 9000 }),
				fails: always,
			},
			// One fault each before anything was applied: a read recovers on retry; an order is looked
			// up, not found, and reported unknown (never sent again); a transfer is reported unknown.
			{
				name: 'HTTP 500',
				setup: (modeSandbox) => modeSandbox.setFaults({ rules: [{ kind: 'http500', times: 1 }] }),
				fails: isWrite,
			},
			{
				name: 'HTTP 502 (HTML body)',
				setup: (modeSandbox) => modeSandbox.setFaults({ rules: [{ kind: 'http502', times: 1 }] }),
				fails: isWrite,
			},
			{
				name: 'connection dropped before',
				setup: (modeSandbox) =>
					modeSandbox.setFaults({ rules: [{ kind: 'dropBefore', times: 1 }] }),
				fails: isWrite,
			},
			// Three in a row: an order committed unanswered is found by its client order ID (the
			// lookups retried past the drops) and reported placed; the read recovers; a transfer is
			// found in the transfer history by its client order ID and reported placed too.
			{
				name: 'connection dropped after, three times',
				setup: (modeSandbox) => modeSandbox.setFaults({ rules: [{ kind: 'dropAfter', times: 3 }] }),
				fails: () => false,
			},
			// Committed unanswered and every lookup failing: the order's outcome stays unknown (the
			// unknown-outcome error, its description and the lookup's failure are checked too).
			{
				name: 'committed unanswered, lookups failing',
				setup: (modeSandbox) =>
					modeSandbox.setFaults({
						rules: [
							{ kind: 'dropAfter', times: 1 },
							{ kind: 'http500', times: 6, path: QUERY_ORDER },
							{ kind: 'http500', times: 6, path: PATHS.history },
						],
					}),
				fails: always,
				only: ['create', 'transferAsset'],
			},
			{
				name: 'rate limited beyond the wait limit',
				setup: (modeSandbox) =>
					modeSandbox.setFaults({
						rules: [{ kind: 'rateLimit', times: 50, retryAfterSeconds: 3600 }],
					}),
				fails: always,
			},
			{
				name: 'wrong path under the base URL (404)',
				credentials: (modeSandbox) => ({ baseUrl: `${modeSandbox.baseUrl}/wrong` }),
				fails: always,
			},
			// Retried with backoff (7.75 s in all), so one run only.
			{
				name: 'nothing listening (ECONNREFUSED)',
				credentials: () => ({ baseUrl: 'http://127.0.0.1:9' }),
				fails: always,
				only: ['getHistory'],
			},
		];
		// Each mode on its own sandbox, all at once: most of the time is retry backoff.
		const modeSandboxes = await Promise.all(
			modes.map(() => startSandbox({ rateLimit: false, symbolRules: 'lenient' })),
		);
		const problems: string[] = [];
		let runs = 0;
		try {
			const output = await captureOutput(async () => {
				await Promise.all(
					modes.map(async (mode, index) => {
						const modeSandbox = modeSandboxes[index];
						modeSandbox.seedRecords({
							flowType: 32,
							count: 40,
							startTime: now - 2 * HOUR,
							endTime: now - HOUR,
							seed: 3,
						});
						for (const parameters of ALL_OPERATIONS.filter(
							(candidate) => !mode.only || mode.only.includes(candidate.operation),
						)) {
							for (const continueOnFail of mode.only ? [false] : [false, true]) {
								modeSandbox.clearFaults();
								if (parameters.resource === 'order') {
									// The orders' symbol rules, read now and kept for a minute: the mode's
									// faults then meet the order requests, not the rules read before them.
									await runTradingService(modeSandbox, {
										parameters: {
											resource: 'market',
											operation: 'getSymbolRules',
											symbol: 'BTCUSDT',
										},
										credentials: mode.credentials?.(modeSandbox),
									});
								}
								mode.setup?.(modeSandbox);
								const run = await runAndTally(modeSandbox, tally, {
									parameters,
									credentials: mode.credentials?.(modeSandbox),
									continueOnFail,
									executionId: `hygiene-${mode.name}-${String(parameters.operation)}-${continueOnFail}`,
								});
								runs++;
								const failed =
									run.error !== undefined ||
									run.items.some((item) => item.json.error !== undefined);
								if (failed !== mode.fails(parameters.operation)) {
									problems.push(
										`${mode.name} / ${String(parameters.operation)}: failed=${failed}: ${run.error?.message ?? JSON.stringify(run.items.map((item) => item.json)).slice(0, 300)}`,
									);
								}
							}
						}
					}),
				);
			});
			expect(problems).toEqual([]);
			expect(tally.runs).toBe(runs);
			expect(runs).toBeGreaterThan(90);
			expect(tally.secretLeaks).toEqual([]);
			expect(secretIn(output)).toBeUndefined();
			for (const modeSandbox of modeSandboxes) {
				for (const request of modeSandbox.ledger.requests)
					expect(secretIn(requestText(request))).toBeUndefined();
			}
			expect(SECRETS).toHaveLength(4);
		} finally {
			await Promise.all(modeSandboxes.map((modeSandbox) => modeSandbox.stop()));
		}
	});
});

// ------------------------------------------------------------------ tampering

function replay(request: LedgerRequest, query: string, body = request.body): Promise<RawResponse> {
	const headers: Record<string, string> = { 'X-APIKEY': request.apiKey ?? '' };
	if (request.body !== '') headers['Content-Type'] = 'application/json';
	return rawRequest(sandbox().baseUrl, {
		method: request.method,
		url: `${request.path}?${query}`,
		body: body === '' ? undefined : body,
		headers,
	});
}

/** A different value of the same kind: digits stay digits, decimals stay decimals, words stay words. */
function nudge(value: string): string {
	const decoded = decodeURIComponent(value);
	if (/^\d+$/.test(decoded)) return String(BigInt(decoded) + 1n);
	if (/^\d+\.\d+$/.test(decoded)) return `${decoded}1`;
	if (decoded === 'BUY') return 'SELL';
	if (decoded === 'SELL') return 'BUY';
	if (decoded === 'EXPIRE_TAKER') return 'EXPIRE_MAKER';
	if (decoded === 'LIMIT') return 'LIMIT_MAKER';
	if (decoded === 'GTC') return 'IOC';
	if (decoded === 'USDT') return 'BTC';
	if (decoded === 'BTCUSDT') return 'ETHUSDT';
	return `${value}x`;
}

/**
 * Runs every operation once on the (freshly reset) sandbox, with 10 records to read: the requests
 * the node signed, one per operation. Each test captures its own: the sandbox is reset before each.
 */
async function captureSignedRequests(sb: Sandbox): Promise<LedgerRequest[]> {
	sb.seedRecords({
		flowType: 32,
		count: 10,
		startTime: now - 2 * HOUR,
		endTime: now - HOUR,
		seed: 4,
	});
	for (const parameters of ALL_OPERATIONS) {
		const run = await runAndTally(sb, tally, {
			parameters,
			executionId: `tamper-${String(parameters.operation)}`,
		});
		expect(run.error).toBeUndefined();
	}
	// The symbol rules of the orders are market data: read with the key alone, nothing to tamper with.
	const rulesReads = sb.ledger.requests.filter((request) => request.path === PATHS.exchangeInfo);
	expect(rulesReads.length).toBeGreaterThan(0);
	expect(rulesReads.filter((request) => /(^|&)(signature|timestamp)=/.test(request.query))).toEqual(
		[],
	);
	const captured = sb.ledger.requests.filter((request) => request.path !== PATHS.exchangeInfo);
	expect(captured.map((request) => request.path)).toEqual([
		PATHS.history,
		PATHS.transfer,
		PATHS.order,
		PATHS.batch,
	]);
	return captured;
}

describe('a signed request with one parameter changed is rejected (0002, bad signature) and changes nothing', () => {
	it('each parameter of each signed request, changed, added, dropped, moved; and the body changed', async () => {
		const sb = sandbox();
		const captured = await captureSignedRequests(sb);
		const ordersBefore = sb.ledger.orders.length;
		const transfersBefore = sb.ledger.transfers.length;
		const balance = sb.getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT');
		const variants: Array<{ what: string; request: LedgerRequest; query: string; body?: string }> =
			[];
		for (const request of captured) {
			const pairs = request.query.split('&');
			const signatureIndex = pairs.findIndex((pair) => pair.startsWith('signature='));
			pairs.forEach((pair, index) => {
				if (index === signatureIndex) return;
				const [key, value] = pair.split('=');
				const changed = [...pairs];
				changed[index] = `${key}=${nudge(value)}`;
				variants.push({
					what: `${request.path}: ${key} changed`,
					request,
					query: changed.join('&'),
				});
				variants.push({
					what: `${request.path}: ${key} dropped`,
					request,
					query: pairs.filter((_, other) => other !== index).join('&'),
				});
			});
			variants.push({
				what: `${request.path}: a parameter added`,
				request,
				query: [
					...pairs.slice(0, signatureIndex),
					'recvWindow2=1',
					...pairs.slice(signatureIndex),
				].join('&'),
			});
			const moved = [...pairs.slice(0, signatureIndex)];
			moved.unshift(moved.pop()!);
			variants.push({
				what: `${request.path}: parameters reordered`,
				request,
				query: [...moved, pairs[signatureIndex]].join('&'),
			});
			if (request.body !== '') {
				variants.push({
					what: `${request.path}: body quantity changed`,
					request,
					query: request.query,
					body: request.body.replace('"0.5"', '"0.6"'),
				});
				variants.push({
					what: `${request.path}: body side changed`,
					request,
					query: request.query,
					body: request.body.replace('"SELL"', '"BUY"'),
				});
			}
		}
		const answers: Array<{ what: string; status: number; code: unknown }> = [];
		for (const variant of variants) {
			const response = await replay(variant.request, variant.query, variant.body);
			answers.push({ what: variant.what, status: response.status, code: response.json?.code });
		}
		expect(answers.filter((answer) => answer.status !== 400 || answer.code !== '0002')).toEqual([]);
		expect(variants.length).toBeGreaterThan(40);
		expect(sb.ledger.orders.length).toBe(ordersBefore);
		expect(sb.ledger.transfers.length).toBe(transfersBefore);
		expect(sb.getBalance(DEMO_ACCOUNTS.mainTrading, 'USDT')).toBe(balance);
	});

	it('while the untouched read, replayed, is accepted: the change is what was refused', async () => {
		const captured = await captureSignedRequests(sandbox());
		const history = captured[0];
		const response = await replay(history, history.query);
		expect(response.status).toBe(200);
		expect(Array.isArray(response.json)).toBe(true);
	});
});
