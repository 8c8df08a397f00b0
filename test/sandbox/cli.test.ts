/** cli.ts: `npm run sandbox` prints what a person needs to call it, and serves. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { DEMO_KEYS } from '../../sandbox';
import { TestClient, rawRequest } from '../../sandbox/testClient';

const ROOT = path.resolve(__dirname, '..', '..');

describe('npm run sandbox (cli.ts)', () => {
	let child: ChildProcess | undefined;

	afterEach(() => {
		if (child && child.exitCode === null) child.kill('SIGTERM');
	});

	it('listens on 127.0.0.1 (SANDBOX_PORT=0: ephemeral), prints URL, keys, secrets and accounts, seeds the demo', async () => {
		child = spawn(
			process.execPath,
			['-r', 'ts-node/register/transpile-only', 'sandbox/cli.ts', '--seed-demo'],
			{
				cwd: ROOT,
				env: { ...process.env, SANDBOX_PORT: '0' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let out = '';
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
			child!.stdout!.on('data', (c: Buffer) => {
				out += c.toString();
				const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
				if (m && out.includes('Press Ctrl+C')) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
			child!.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
		});
		for (const k of Object.values(DEMO_KEYS)) {
			expect(out).toContain(k.apiKey);
			expect(out).toContain(k.secret);
		}
		for (const acc of ['10001', '10003', '10005', '10006', '20001']) expect(out).toContain(acc);
		expect((await rawRequest(url, { method: 'GET', url: '/api/v1/time' })).status).toBe(200);
		const c = new TestClient(url, DEMO_KEYS.master, Date.now);
		const funding = await c.history({
			flowType: 32,
			startTime: 0,
			endTime: Date.now(),
			limit: 500,
		});
		expect(funding.json.length).toBeGreaterThanOrEqual(170);
	});

	/** Start the CLI with `args` on an ephemeral port; its URL and what it printed. */
	async function start(args: string[]): Promise<{ url: string; out: string }> {
		child = spawn(
			process.execPath,
			['-r', 'ts-node/register/transpile-only', 'sandbox/cli.ts', '--port', '0', ...args],
			{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let out = '';
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
			child!.stdout!.on('data', (c: Buffer) => {
				out += c.toString();
				const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
				if (m && out.includes('Press Ctrl+C')) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
			child!.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
		});
		return { url, out };
	}

	it('enforces the documented request rates, with the suspension of --suspension-ms', async () => {
		const { url, out } = await start(['--suspension-ms', '1200']);
		expect(out).toContain(
			'Request rates per API key: 20 order, 5 query requests a second; suspension 1200 ms',
		);
		const c = new TestClient(url, DEMO_KEYS.master, Date.now);
		const sent = await Promise.all(Array.from({ length: 6 }, () => c.openOrders()));
		expect(sent.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
		expect(sent.find((r) => r.status === 429)!.json).toEqual({
			code: '0003',
			msg: 'Rate limit exceeded',
		});
		const refusedBy = Date.now();
		// Signed within a second of the refusal: in flight, refused the same; signed later: 418.
		expect((await c.openOrders()).status).toBe(429);
		expect((await c.openOrders({}, { timestamp: Date.now() + 1000 })).status).toBe(418);
		await new Promise((resolve) => setTimeout(resolve, refusedBy + 1250 - Date.now()));
		expect((await c.openOrders()).status).toBe(200);
	});

	it('--no-request-rates: none', async () => {
		const { url, out } = await start(['--no-request-rates']);
		expect(out).toContain('Request rates: none');
		const c = new TestClient(url, DEMO_KEYS.master, Date.now);
		const sent = await Promise.all(Array.from({ length: 12 }, () => c.openOrders()));
		expect(sent.map((r) => r.status)).toEqual(Array(12).fill(200));
	});

	it('--funding-interval-ms: futures funding settled at that interval', async () => {
		const { url } = await start(['--funding-interval-ms', '3600000']);
		const c = new TestClient(url, DEMO_KEYS.master, Date.now);
		const r = await c.call({
			method: 'GET',
			path: '/api/v2/futures/fundingRate',
			query: { symbol: 'BTCUSDT-PERPETUAL' },
		});
		expect(r.status).toBe(200);
		const hour = 3_600_000;
		const next = Number(r.json[0].nextFundingTime);
		expect(next % hour).toBe(0);
		expect(next - Date.now()).toBeLessThanOrEqual(hour);
	});
});
