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
});
