import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { DEMO_KEYS, startSandbox, type HistoryRecord } from '../index';
import { TestClient, rawRequest } from '../testClient';

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
});

describe('seedDemo', () => {
	it('writes funding fees over 30 days, transfers, deposits, withdrawals and trades', async () => {
		const sb = await startSandbox({ seedDemo: true, now: () => 1_800_000_123_456 });
		try {
			const c = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
			const q = (flowType: number, extra = {}) =>
				c.history({ flowType, startTime: 0, endTime: sb.now(), limit: 500, ...extra });
			const funding = (await q(32)).json as HistoryRecord[];
			expect(funding.length).toBe(180);
			expect(funding.every((r) => r.symbol && r.accountId === '10003')).toBe(true);
			const transfers = (await q(51)).json as HistoryRecord[];
			expect(transfers.length).toBe(10);
			expect(
				((await q(51, {})).json as HistoryRecord[]).filter((r) => r.accountId === '20001'),
			).toHaveLength(2);
			expect(((await q(900)).json as HistoryRecord[]).length).toBe(3);
			expect(((await q(904)).json as HistoryRecord[]).length).toBe(1);
			expect(((await q(906)).json as HistoryRecord[]).length).toBe(3);
			expect(((await q(910)).json as HistoryRecord[]).length).toBe(1);
			expect(((await q(1)).json as HistoryRecord[]).length).toBe(6);
			expect(((await q(2)).json as HistoryRecord[]).length).toBe(3);
			// reset() keeps the seeded demo when it was asked for at start
			sb.reset();
			expect(((await q(32)).json as HistoryRecord[]).length).toBe(180);
		} finally {
			await sb.stop();
		}
	});
});
