/**
 * One-command demo: the package in a real n8n against the local sandbox.
 *
 *   npm ci --ignore-scripts    # once, after cloning
 *   npm run demo               # build, start sandbox + n8n, run the six examples, print a summary, stop
 *   npm run demo -- --editor   # the same, then keep n8n's editor open on http://127.0.0.1:5678 until Ctrl+C
 *
 * Options: --port N (n8n's port; default 5678 with --editor, else a free one), --sandbox-port N
 * (default: a free one).
 *
 * Steps: `npm run build`; the n8n runtime (n8n 2.41.1 + Node 24 from npm, installed once into
 * .n8n-runtime/ by tools/n8n-runtime/install.sh, ~5 min cold, cached after); the sandbox with
 * its demo history on 127.0.0.1; a fresh n8n user folder in .n8n-demo/ with the package installed
 * from `npm pack` as n8n installs community packages, the credential "Trading Service Sandbox"
 * and the examples/ workflows imported; `n8n start`; each example run as the editor's "Execute
 * workflow" button runs it (REST). n8n and the sandbox are stopped on exit and on Ctrl+C.
 */
import * as fsp from 'fs/promises';
import * as path from 'path';

import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import {
	EXAMPLES,
	MARKET_EXAMPLES,
	loadAllExamples,
	loadMarketExample,
	sandboxCredential,
} from './n8n/examples';
import { QUIET_N8N_ENV } from './n8n/fixture';
import { importCredentials, importWorkflow } from './n8n/cli';
import { createN8nEnv } from './n8n/environment';
import { PACKAGE_NAME, packAndInstallPackage } from './n8n/package';
import { getFreePort, killAllChildren, runProcess } from './n8n/processes';
import type { RestExecution } from './n8n/rest';
import { getNodeItems } from './n8n/run-data';
import { REPO_ROOT, ensureRuntime } from './n8n/runtime';
import { startN8n, type N8nInstance } from './n8n/server';

const USER_FOLDER = path.join(REPO_ROOT, '.n8n-demo');
const started = Date.now();

function elapsed(): string {
	return `${((Date.now() - started) / 1000).toFixed(0)}s`;
}

function step(message: string): void {
	process.stderr.write(`[demo ${elapsed().padStart(4)}] ${message}\n`);
}

function option(name: string): number | undefined {
	const index = process.argv.indexOf(name);
	if (index < 0) return undefined;
	const value = Number(process.argv[index + 1]);
	if (!Number.isInteger(value) || value < 0 || value > 65535)
		throw new Error(`${name} needs a port number`);
	return value;
}

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let stopping: Promise<void> | undefined;

/** Stops n8n (gracefully), any other child still running, and the sandbox. Idempotent. */
function shutdown(): Promise<void> {
	stopping ??= (async () => {
		await n8n?.stop().catch(() => undefined);
		killAllChildren(); // e.g. a build or runtime install interrupted by Ctrl+C
		await sandbox?.stop().catch(() => undefined);
	})();
	return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.on(signal, () => {
		process.stderr.write(`\n[demo] ${signal}: stopping n8n and the sandbox\n`);
		void shutdown().then(() => process.exit(130));
	});
}

function items(exec: RestExecution, node: string): Array<Record<string, unknown>> {
	return getNodeItems({ data: exec.data! }, node);
}

function assertSuccess(exec: RestExecution, what: string): void {
	if (exec.status !== 'success') {
		const error = exec.data?.resultData?.error;
		throw new Error(
			`${what}: execution ${exec.id} ended with status ${exec.status}: ${error?.message ?? ''} ${error?.description ?? ''}`,
		);
	}
}

function sum(values: unknown[]): string {
	// Funding fees have at most 8 decimals: integer arithmetic on 1e-8 units, no float drift.
	const units = values.reduce<bigint>((total, v) => {
		const [int, frac = ''] = String(v).replace('-', '').split('.');
		const n = BigInt(int + frac.padEnd(8, '0').slice(0, 8));
		return total + (String(v).startsWith('-') ? -n : n);
	}, 0n);
	const sign = units < 0n ? '-' : '';
	const abs = units < 0n ? -units : units;
	const frac = (abs % 100_000_000n).toString().padStart(8, '0').replace(/0+$/, '');
	return `${sign}${abs / 100_000_000n}${frac ? `.${frac}` : ''}`;
}

function countBy(list: Array<Record<string, unknown>>, key: string): string {
	const counts = new Map<string, number>();
	for (const entry of list)
		counts.set(String(entry[key]), (counts.get(String(entry[key])) ?? 0) + 1);
	return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
}

async function main(): Promise<void> {
	const editor = process.argv.includes('--editor');
	const out: string[] = [];
	const print = (line = '') => out.push(line);

	step('building the package (npm run build)');
	const build = await runProcess('npm', ['run', 'build'], {
		env: process.env,
		cwd: REPO_ROOT,
		timeoutMs: 10 * 60_000,
	});
	if (build.exitCode !== 0)
		throw new Error(`npm run build failed:\n${(build.stdout + build.stderr).slice(-3000)}`);

	step(
		'n8n runtime: tools/n8n-runtime/install.sh (cached after the first run; the first takes ~5 min)',
	);
	await ensureRuntime();

	sandbox = await startSandbox({
		port: option('--sandbox-port') ?? 0,
		host: '127.0.0.1',
		seedDemo: true,
		symbolRules: 'realistic',
		market: { moving: true },
	});
	step(`sandbox listening on ${sandbox.baseUrl} with its demo history`);

	step(
		`n8n user folder ${path.relative(REPO_ROOT, USER_FOLDER)}/ (made afresh): npm pack + install the package, import credential and examples`,
	);
	await fsp.rm(USER_FOLDER, { recursive: true, force: true });
	await fsp.mkdir(USER_FOLDER, { recursive: true });
	const installed = await packAndInstallPackage(USER_FOLDER);
	const env = await createN8nEnv({ userFolder: USER_FOLDER, extra: QUIET_N8N_ENV });
	await importCredentials(env, [sandboxCredential(sandbox.baseUrl, DEMO_KEYS.master)]);
	await importWorkflow(env, [
		...loadAllExamples(),
		loadMarketExample('dcaMarketBuy'),
		loadMarketExample('priceAlert'),
	]);

	const port = option('--port') ?? (editor ? 5678 : await getFreePort());
	step(`starting n8n on http://127.0.0.1:${port}`);
	n8n = await startN8n(env, { port }).catch((error: Error) => {
		throw new Error(`${error.message}\n(is port ${port} in use? choose another with --port N)`);
	});
	const cookie = await n8n.login();

	print('');
	print(`Trading Service demo: ${PACKAGE_NAME}@${installed.version} (npm pack) in n8n 2.41.1`);
	print(`  sandbox  ${sandbox.baseUrl}  (demo keys, 30 days of history)`);
	print(`  n8n      ${n8n.baseUrl}`);
	print('');

	// 1. Funding fee alert: the trigger's "Fetch Test Event" poll (manual mode) -> Set.
	{
		const ex = EXAMPLES.fundingFeeAlert;
		step('running "funding fee alert" from its trigger');
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, 'funding fee alert');
		print('1. Funding fee alert   Trading Service Trigger (Funding Fee Charged) -> Set');
		for (const item of items(exec, ex.message)) print(`   ${String(item.message)}`);
		print(
			'   (a test poll shows the newest record; once the workflow is published, each poll emits every new one)',
		);
	}

	// 2. Scheduled transfer, started now instead of at 09:00.
	{
		const ex = EXAMPLES.scheduledTransfer;
		step('running "scheduled transfer" now');
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, 'scheduled transfer');
		const [transfer] = items(exec, ex.transfer);
		const records = items(exec, ex.check);
		print('');
		print(
			'2. Scheduled transfer  Schedule Trigger (daily 09:00; run now) -> Transfer Asset -> Get Transaction History',
		);
		print(
			`   transfer ${String(transfer.id)}: 25 USDT from ${DEMO_ACCOUNTS.mainTrading} (main) to ${DEMO_ACCOUNTS.subTrading} (sub); the history shows:`,
		);
		for (const r of records) {
			print(
				`     account ${String(r.accountId)}  ${String(r.change).startsWith('-') ? '' : '+'}${String(r.change)} ${String(r.coin)}  balance after ${String(r.total)}  (${String(r.createdIso ?? r.created)})`,
			);
		}
	}

	// 3. Batch orders: 45 orders of two symbols -> Create Many.
	{
		const ex = EXAMPLES.batchOrders;
		step('running "batch orders"');
		const before = sandbox.ledger.requests.length;
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, 'batch orders');
		const input = items(exec, ex.list);
		const output = items(exec, ex.createMany);
		const task = exec.data!.resultData.runData[ex.createMany][0].data!.main![0]!;
		const paired = task.every(
			(item, index) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: index }),
		);
		const placed = output.filter((item) => item.success === true);
		const batches = sandbox.ledger.requests
			.slice(before)
			.filter((r) => r.path === '/api/v1/spot/batchOrders');
		print('');
		print('3. Batch orders        Code (45 orders) -> Trading Service Create Many');
		print(
			`   ${input.length} orders in (${countBy(input, 'symbol')}) -> ${output.length} items out, ${placed.length} placed, ${output.length - placed.length} rejected`,
		);
		print(
			`   sent as ${batches.length} requests to /api/v1/spot/batchOrders (${batches.map((r) => (JSON.parse(r.body) as unknown[]).length).join(' + ')} orders), ${paired ? 'each item paired to its input item' : 'PAIRING BROKEN: items not paired to their input items'}`,
		);
		const first = output[0]?.order as Record<string, unknown> | undefined;
		if (first)
			print(
				`   first: ${String(first.side)} ${String(first.origQty)} ${String(first.symbol)} @ ${String(first.price)} -> order ${String(first.orderId)}, ${String(first.status)}`,
			);
	}

	// 4. History export: Return All over 29 days -> CSV.
	{
		const ex = EXAMPLES.historyExport;
		step('running "history export"');
		const before = sandbox.ledger.requests.length;
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, 'history export');
		const records = items(exec, ex.history);
		const pages = sandbox.ledger.requests
			.slice(before)
			.filter((r) => r.path === '/api/v1/account/balanceFlow').length;
		const file = exec.data!.resultData.runData[ex.csv]?.[0]?.data?.main?.[0]?.[0] as
			| { binary?: { data?: { fileName?: string; fileSize?: string } } }
			| undefined;
		print('');
		print(
			'4. History export      Get Transaction History (Funding Fee, last 29 days, Return All) -> CSV',
		);
		print(
			`   ${records.length} funding fee records in ${pages} request(s) (${countBy(records, 'symbol')}), net ${sum(records.map((r) => r.change))} USDT`,
		);
		if (file?.binary?.data) print(`   ${file.binary.data.fileName} (${file.binary.data.fileSize})`);
	}

	// 5. DCA: the price, then a MARKET buy by Amount within its guardrail and the symbol's rules.
	{
		const ex = MARKET_EXAMPLES.dcaMarketBuy;
		step('running "DCA buy" now');
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, 'DCA buy');
		const [price] = items(exec, ex.price);
		const [buy] = items(exec, ex.buy);
		const [summary] = items(exec, ex.summary);
		print('');
		print(
			'5. DCA buy             Schedule Trigger (daily 08:00; run now) -> Get Price -> Create (MARKET BUY 25 USDT, Max Order Amount 50, Fit to Symbol Rules)',
		);
		print(`   BTCUSDT last price ${String(price.price)} USDT (read with the API key, unsigned)`);
		print(
			`   order ${String(buy.orderId)}: ${String(buy.outcome)}, ${String(buy.status)}, ${String(buy.executedQty)} BTC`,
		);
		print(`   ${String(summary.message)}`);
	}

	// 6. Price alert: the 24-hour ticker, and an alert when the change is below -3 %.
	{
		const ex = MARKET_EXAMPLES.priceAlert;
		step('running "24h price alert" now');
		const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
		assertSuccess(exec, '24h price alert');
		const [ticker] = items(exec, ex.ticker);
		const alerted = exec.data?.resultData.runData[ex.message] !== undefined;
		print('');
		print(
			'6. Price alert         Schedule Trigger (every 15 min; run now) -> Get 24h Ticker -> If change < -3 % -> Set',
		);
		print(
			`   BTCUSDT last ${String(ticker.lastPrice)}, 24h open ${String(ticker.openPrice)}, change ${String(ticker.priceChangePercent)} %`,
		);
		print(
			alerted
				? `   alert: ${String(items(exec, ex.message)[0]?.message)}`
				: '   no alert: the change is not below -3 % (the sandbox prices follow a seeded random walk)',
		);
	}

	print('');
	print(`Done in ${elapsed()}.`);
	process.stdout.write(`${out.join('\n')}\n`);

	if (!editor) {
		await shutdown();
		return;
	}
	process.stdout.write(
		[
			'',
			`n8n's editor is running: ${n8n.baseUrl}`,
			`  email     ${n8n.owner.email}`,
			`  password  ${n8n.owner.password}`,
			'The six examples are under Overview (their runs under Executions); the credential',
			`"Trading Service Sandbox" points at the sandbox on ${sandbox.baseUrl}.`,
			'Press Ctrl+C to stop n8n and the sandbox.',
			'',
		].join('\n'),
	);
	await new Promise<never>(() => undefined); // until a signal
}

main().catch(async (error: unknown) => {
	process.stderr.write(
		`[demo] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	if (n8n)
		process.stderr.write(
			`----- n8n output (tail) -----\n${n8n.logs().split('\n').slice(-30).join('\n')}\n`,
		);
	await shutdown();
	process.exit(1);
});
