/**
 * One-command demo: the package in a real n8n against the local sandbox.
 *
 *   npm ci --ignore-scripts    # once, after cloning
 *   npm run demo               # build, start sandbox + n8n, run every example, print a summary, stop
 *   npm run demo -- --editor   # the same, then keep n8n's editor open on http://127.0.0.1:5678 until Ctrl+C
 *
 * Options: --port N (n8n's port; default 5678 with --editor, else a free one), --sandbox-port N
 * (default: a free one).
 *
 * Steps: `npm run build`; the n8n runtime (n8n 2.41.1 + Node 24 from npm, installed once into
 * .n8n-runtime/ by tools/n8n-runtime/install.sh, ~5 min cold, cached after); the sandbox with
 * its demo history on 127.0.0.1, and a scripted OpenAI-compatible model on 127.0.0.1 for the AI
 * agent example (tools/fakeOpenAi.ts: no network); a fresh n8n user folder in .n8n-demo/ with the
 * package installed from `npm pack` as n8n installs community packages, the credentials "Trading
 * Service Sandbox" and "OpenAI" and every examples/ workflow imported; `n8n start`; each example
 * run as the editor's "Execute workflow" button runs it (REST). n8n, the sandbox and the model are
 * stopped on exit and on Ctrl+C.
 *
 * Which examples: DEMO_STEPS has one step per key of ALL_EXAMPLES (tools/n8n/examples.ts), and
 * test/tools/examples.test.ts holds that list against the examples/ folder.
 */
import * as fsp from 'fs/promises';
import * as path from 'path';

import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import { FAKE_MODEL, startFakeOpenAi, toolResults, type FakeOpenAi } from './fakeOpenAi';
import { staleOrdersAgent } from './staleOrdersAgent';
import { isFuturesAgentRequest, reduceOnlyAgent } from './futuresAgent';
import {
	ALL_EXAMPLES,
	EXAMPLES,
	DEPOSIT_EXAMPLES,
	FILL_ALERT_EXAMPLES,
	FUTURES_EXAMPLES,
	FUTURES_SIGNAL_PATH,
	FUTURES_TRADING_EXAMPLES,
	MARKET_EXAMPLES,
	ORDER_EXAMPLES,
	REALTIME_EXAMPLES,
	V2_EXAMPLES,
	findNode,
	loadAnyExample,
	openAiCredential,
	sandboxCredential,
	type AnyExampleKey,
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
/** The scripted model's API key: a placeholder, the model runs on loopback. */
const DEMO_OPENAI_KEY = 'sk-demo-scripted-model';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
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
let model: FakeOpenAi | undefined;
let stopping: Promise<void> | undefined;
/** The summary's lines so far (printed at the end, or up to the failure). */
const out: string[] = [];

/** Stops n8n (gracefully), any other child still running, the sandbox and the model. Idempotent. */
function shutdown(): Promise<void> {
	stopping ??= (async () => {
		await n8n?.stop().catch(() => undefined);
		killAllChildren(); // e.g. a build or runtime install interrupted by Ctrl+C
		await sandbox?.stop().catch(() => undefined);
		await model?.stop().catch(() => undefined);
	})();
	return stopping;
}

function items(exec: RestExecution, node: string, runIndex = 0): Array<Record<string, unknown>> {
	return getNodeItems({ data: exec.data! }, node, runIndex);
}

/** Runs an example workflow from its trigger in n8n; it must succeed. */
async function runExample(
	n8n: N8nInstance,
	cookie: string,
	ex: { id: string; trigger: string },
	what: string,
): Promise<RestExecution> {
	const exec = await n8n.runWorkflowFromTrigger(cookie, ex.id, ex.trigger);
	assertSuccess(exec, what);
	return exec;
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

/** The binary file a Convert to File node wrote (its first item's `data`), if any. */
function fileOf(
	exec: RestExecution,
	node: string,
): { fileName?: string; fileSize?: string } | undefined {
	const item = exec.data!.resultData.runData[node]?.[0]?.data?.main?.[0]?.[0] as
		| { binary?: { data?: { fileName?: string; fileSize?: string } } }
		| undefined;
	return item?.binary?.data;
}

/** An open order the demo seeds before any step runs, for the agent and the stale-orders examples. */
interface SeededOrder {
	orderId: string;
	symbol: string;
	/** How long before the demo started it was placed, as the summary says it. */
	age: string;
}

/**
 * Open orders placed days and hours ago, seeded before any step places an order (the sandbox
 * seeds an order only at or after the newest one's time, as its ids grow with time). The agent
 * (asked about BTCUSDT) runs first and cancels the BTCUSDT ones older than a day; the stale-orders
 * workflow then cancels what is still older than a day, the ETHUSDT one.
 */
function seedOpenOrders(sb: Sandbox): SeededOrder[] {
	const now = sb.now();
	const orders = [
		{
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '45000',
			quantity: '0.001',
			ageMs: 3 * DAY_MS,
			age: '3 days',
		},
		{
			symbol: 'ETHUSDT',
			side: 'SELL',
			price: '3200',
			quantity: '0.05',
			ageMs: 30 * HOUR_MS,
			age: '30 hours',
		},
		{
			symbol: 'BTCUSDT',
			side: 'SELL',
			price: '58000',
			quantity: '0.002',
			ageMs: 26 * HOUR_MS,
			age: '26 hours',
		},
		{
			symbol: 'ETHUSDT',
			side: 'BUY',
			price: '2800',
			quantity: '0.05',
			ageMs: 6 * HOUR_MS,
			age: '6 hours',
		},
		{
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '45000',
			quantity: '0.003',
			ageMs: 2 * HOUR_MS,
			age: '2 hours',
		},
	] as const;
	return orders.map((o) => ({
		orderId: sb.seedOpenOrder({
			symbol: o.symbol,
			side: o.side,
			price: o.price,
			quantity: o.quantity,
			time: now - o.ageMs,
		}).orderId,
		symbol: o.symbol,
		age: o.age,
	}));
}

function describeOrders(orders: SeededOrder[]): string {
	return orders.map((o) => `${o.symbol} ${o.age} old (${o.orderId})`).join(', ');
}

/** The futures contracts the demo holds positions in. */
const BTC_PERP = 'BTCUSDT-PERPETUAL';
const ETH_PERP = 'ETHUSDT-PERPETUAL';
const SOL_PERP = 'SOLUSDT-PERPETUAL';

/**
 * Where the sandbox's clock starts, relative to the real one: 23:00 the day before yesterday (UTC,
 * n8n's timezone here), so that the futures positions opened at start pay yesterday's three funding
 * settlements (00:00, 08:00, 16:00) for the daily report. main() sets it back to 0 at once.
 */
function futuresStartShift(): number {
	const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
	return today - DAY_MS - HOUR_MS - Date.now();
}

/**
 * Futures positions and funding rates, given while the sandbox's clock is at 23:00 the day before
 * yesterday: one rate per settlement since (yesterday 00:00, 08:00, 16:00, today 00:00), the last
 * one staying for the periods after it: now BTC 0.07 % and SOL 0.0625 % a period (above the alert's
 * 0.05 %), ETH 0.01 %.
 */
function seedFutures(sb: Sandbox): void {
	sb.futures.fill({ symbol: BTC_PERP, side: 'BUY', quantity: '0.05' });
	sb.futures.fill({ symbol: ETH_PERP, side: 'BUY', quantity: '1.2' });
	sb.futures.fill({ symbol: SOL_PERP, side: 'BUY', quantity: '20' });
	sb.futures.setFundingRates(BTC_PERP, ['0.0001', '-0.00004', '0.00018', '0.00022', '0.0007']);
	sb.futures.setFundingRates(ETH_PERP, ['0.00012', '0.0001', '-0.00002', '0.00009', '0.0001']);
	sb.futures.setFundingRates(SOL_PERP, ['0.0003', '0.00025', '0.0002', '0.0004', '0.000625']);
}

/** What the demo's steps work with. */
interface Demo {
	n8n: N8nInstance;
	cookie: string;
	sandbox: Sandbox;
	model: FakeOpenAi;
	/** The open orders seeded before the first step (seedOpenOrders). */
	seeded: SeededOrder[];
	/** One line of the summary (refused when it shows a value that is not there). */
	print(line?: string): void;
}

/**
 * Publishes a real-time example, waits for its connection and the baseline read, has the exchange
 * fill a resting BTCUSDT BUY, and hands the one execution it starts to `check`; unpublishes it.
 */
async function activateAndFill(
	n8n: N8nInstance,
	cookie: string,
	sb: Sandbox,
	workflowId: string,
	price: string,
	check: (exec: RestExecution, order: { orderId: string }, latencyMs: number) => void,
): Promise<void> {
	const opened = sb.stream.stats().connectionsOpened;
	await n8n.activateWorkflow(cookie, workflowId);
	try {
		// Connected, then the baseline read (the open orders) before the fill.
		for (let waited = 0; sb.stream.stats().connectionsOpened === opened; waited += 100) {
			if (waited > 30_000) throw new Error('the real-time trigger did not connect in 30 s');
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		const order = sb.seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price,
			quantity: '0.001',
			time: sb.now(),
		});
		const filledAt = Date.now();
		sb.fillOrder(order.orderId);
		const [exec] = await n8n.waitForExecutions(cookie, workflowId, 1, {
			mode: 'trigger',
			timeoutMs: 30_000,
		});
		check(exec, order, new Date(String(exec.startedAt)).getTime() - filledAt);
	} finally {
		await n8n.deactivateWorkflow(cookie, workflowId);
	}
}

interface DemoStep {
	/** The example's short name, as the summary's heading shows it. */
	title: string;
	/** Its nodes, in the order they run. */
	flow: string;
	run(demo: Demo): Promise<void>;
}

/**
 * One step per example, run in this order. The type lists every key of ALL_EXAMPLES, so an example
 * added there and not here does not compile (and test/tools/examples.test.ts says which).
 */
export const DEMO_STEPS: { readonly [K in AnyExampleKey]: DemoStep } = {
	// The trigger's "Fetch Test Event" poll (manual mode) -> Set.
	fundingFeeAlert: {
		title: 'Funding fee alert',
		flow: 'Trading Service Trigger (Funding Fee Charged) -> Set',
		async run({ n8n, cookie, print }) {
			const ex = EXAMPLES.fundingFeeAlert;
			const exec = await runExample(n8n, cookie, ex, 'funding fee alert');
			for (const item of items(exec, ex.message)) print(`   ${String(item.message)}`);
			print(
				'   (a test poll shows the newest record; once the workflow is published, each poll emits every new one)',
			);
		},
	},

	// Started now instead of at 09:00.
	scheduledTransfer: {
		title: 'Scheduled transfer',
		flow: 'Schedule Trigger (daily 09:00 UTC; run now) -> Transfer Asset -> Get Transaction History',
		async run({ n8n, cookie, print }) {
			const ex = EXAMPLES.scheduledTransfer;
			const exec = await runExample(n8n, cookie, ex, 'scheduled transfer');
			const [transfer] = items(exec, ex.transfer);
			const records = items(exec, ex.check);
			print(
				`   transfer ${String(transfer.orderId)} (${String(transfer.outcome)}): 25 USDT from ${DEMO_ACCOUNTS.mainTrading} (main) to ${DEMO_ACCOUNTS.subTrading} (sub); the history shows:`,
			);
			for (const r of records) {
				print(
					`     account ${String(r.accountId)}  ${String(r.change).startsWith('-') ? '' : '+'}${String(r.change)} ${String(r.coin)}  balance after ${String(r.total)}  (${String(r.createdIso ?? r.created)})`,
				);
			}
		},
	},

	// 45 orders of two symbols -> Create Many.
	batchOrders: {
		title: 'Batch orders',
		flow: 'Code (45 orders) -> Trading Service Create Many',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = EXAMPLES.batchOrders;
			const before = sb.ledger.requests.length;
			const exec = await runExample(n8n, cookie, ex, 'batch orders');
			const input = items(exec, ex.list);
			const output = items(exec, ex.createMany);
			const task = exec.data!.resultData.runData[ex.createMany][0].data!.main![0]!;
			const paired = task.every(
				(item, index) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: index }),
			);
			const placed = output.filter((item) => item.success === true);
			// Each request's orders, by symbol (Create Many groups by symbol, at most 20 a request).
			const batches = sb.ledger.requests
				.slice(before)
				.filter((r) => r.path === '/api/v1.1/spot/batchOrders')
				.map((r) => countBy(JSON.parse(r.body) as Array<Record<string, unknown>>, 'symbol'));
			print(
				`   ${input.length} orders in (${countBy(input, 'symbol')}) -> ${output.length} items out, ${placed.length} placed, ${output.length - placed.length} rejected`,
			);
			print(
				`   sent as ${batches.length} requests to /api/v1.1/spot/batchOrders (version 2), one symbol and at most 20 orders each: ${batches.join(' | ')}`,
			);
			print(
				`   ${paired ? 'each item paired to its input item' : 'PAIRING BROKEN: items not paired to their input items'}`,
			);
			const first = output[0]?.order as Record<string, unknown> | undefined;
			if (first)
				print(
					`   first: ${String(first.side)} ${String(first.origQty)} ${String(first.symbol)} @ ${String(first.price)} -> order ${String(first.orderId)}, ${String(first.status)}`,
				);
		},
	},

	// Return All over 29 days -> CSV.
	historyExport: {
		title: 'History export',
		flow: 'Get Transaction History (Funding Fee, last 29 days, Return All) -> CSV',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = EXAMPLES.historyExport;
			const before = sb.ledger.requests.length;
			const exec = await runExample(n8n, cookie, ex, 'history export');
			const records = items(exec, ex.history);
			const pages = sb.ledger.requests
				.slice(before)
				.filter((r) => r.path === '/api/v1/account/balanceFlow').length;
			print(
				`   ${records.length} funding fee records in ${pages} request(s) (${countBy(records, 'symbol')}), net ${sum(records.map((r) => r.change))} USDT`,
			);
			const file = fileOf(exec, ex.csv);
			if (file) print(`   ${String(file.fileName)} (${String(file.fileSize)})`);
		},
	},

	// The price, then a MARKET buy by Amount within its guardrail and the symbol's rules.
	dcaMarketBuy: {
		title: 'DCA buy',
		flow: 'Schedule Trigger (daily 08:00 UTC; run now) -> Get Price -> Create (MARKET BUY 25 USDT; Guardrails: Max Order Amount 50, Fit to Symbol Rules) -> Set',
		async run({ n8n, cookie, print }) {
			const ex = MARKET_EXAMPLES.dcaMarketBuy;
			const exec = await runExample(n8n, cookie, ex, 'DCA buy');
			const [price] = items(exec, ex.price);
			const [buy] = items(exec, ex.buy);
			const [summary] = items(exec, ex.summary);
			print(`   BTCUSDT last price ${String(price.price)} USDT (read with the API key, unsigned)`);
			print(
				`   order ${String(buy.orderId)}: ${String(buy.outcome)}, ${String(buy.status)}, ${String(buy.executedQty)} BTC`,
			);
			print(`   ${String(summary.message)}`);
		},
	},

	// The 24-hour ticker, and an alert when the change is below -3 %.
	priceAlert: {
		title: 'Price alert',
		flow: 'Schedule Trigger (every 15 min; run now) -> Get 24h Ticker -> If change < -3 % -> Set',
		async run({ n8n, cookie, print }) {
			const ex = MARKET_EXAMPLES.priceAlert;
			const exec = await runExample(n8n, cookie, ex, '24h price alert');
			const [ticker] = items(exec, ex.ticker);
			const alerted = exec.data?.resultData.runData[ex.message] !== undefined;
			print(
				`   BTCUSDT last ${String(ticker.lastPrice)}, 24h open ${String(ticker.openPrice)}, change ${String(ticker.priceChangePercent)} %`,
			);
			print(
				alerted
					? `   alert: ${String(items(exec, ex.message)[0]?.message)}`
					: '   no alert: the change is not below -3 % (the sandbox prices follow a seeded random walk)',
			);
		},
	},

	// The scripted model lists the open BTCUSDT orders, cancels those older than a day, answers.
	agentOpenOrders: {
		title: 'AI agent',
		flow: `Manual Trigger -> AI Agent (OpenAI Chat Model: a scripted ${FAKE_MODEL} on loopback; tools Get Open Orders, Cancel Order)`,
		async run({ n8n, cookie, sandbox: sb, model: ai, seeded, print }) {
			const ex = ORDER_EXAMPLES.agentOpenOrders;
			const asked = ai.chatRequests.length;
			const exec = await runExample(n8n, cookie, ex, 'AI agent');
			if (ai.errors.length > 0)
				throw new Error(`the scripted model failed: ${ai.errors[0].message}`);
			const runs = exec.data!.resultData.runData[ex.agent].length;
			const [answer] = items(exec, ex.agent, runs - 1);
			// The last request carries every tool call so far, with its result.
			const calls = toolResults(ai.chatRequests[ai.chatRequests.length - 1]).map(
				(result) =>
					`${result.name}(${String(result.arguments.symbol ?? result.arguments.orderId)})`,
			);
			const btc = seeded.filter((o) => o.symbol === 'BTCUSDT');
			print(`   open BTCUSDT orders seeded before the demo: ${describeOrders(btc)}`);
			print(
				`   asked: "${String(findNode(loadAnyExample('agentOpenOrders'), ex.agent).parameters.text)}"`,
			);
			print(`   ${ai.chatRequests.length - asked} model calls; tools called: ${calls.join(', ')}`);
			print(`   answer: ${String(answer.output)}`);
			const cancelled = btc.filter((o) => sb.getOrder(o.orderId)?.status === 'CANCELED');
			print(`   cancelled on the exchange: ${describeOrders(cancelled) || 'none'}`);
		},
	},

	// After the agent: what is still open and older than 24 hours is the ETHUSDT order.
	cancelStaleOrders: {
		title: 'Cancel stale orders',
		flow: 'Schedule Trigger (every hour; run now) -> Get Many (open orders) -> Filter (older than 24 hours) -> Cancel',
		async run({ n8n, cookie, sandbox: sb, seeded, print }) {
			const ex = ORDER_EXAMPLES.cancelStaleOrders;
			const open = seeded.filter((o) => sb.getOrder(o.orderId)?.status === 'NEW');
			const exec = await runExample(n8n, cookie, ex, 'cancel stale orders');
			const listed = items(exec, ex.list);
			const kept = items(exec, ex.filter);
			const cancelled = exec.data?.resultData.runData[ex.cancel] ? items(exec, ex.cancel) : [];
			print(`   seeded orders still open: ${describeOrders(open)}`);
			print(
				`   ${listed.length} open orders listed (the batch orders above among them), ${kept.length} older than 24 hours, ${cancelled.length} cancelled:`,
			);
			for (const c of cancelled)
				print(
					`     order ${String(c.orderId)} ${String(c.symbol)}: ${String(c.outcome)}, ${String(c.status)}`,
				);
		},
	},

	// The fills of the last 24 hours: the DCA buy above, and two batch orders the exchange fills now.
	fillsExport: {
		title: 'Fills export',
		flow: 'Manual Trigger -> Trading Service Get Trades (BTCUSDT, last 24 hours, Return All) -> CSV',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = V2_EXAMPLES.fillsExport;
			const resting = sb.ledger.orders
				.filter((o) => o.via === 'batch' && o.symbol === 'BTCUSDT')
				.map((o) => sb.getOrder(o.orderId))
				.filter((o) => o?.status === 'NEW')
				.slice(0, 2);
			const [whole, half] = resting;
			if (whole) sb.fillOrder(whole.orderId);
			if (half) sb.fillOrder(half.orderId, halfOf(half.origQty));
			const exec = await runExample(n8n, cookie, ex, 'fills export');
			const fills = items(exec, ex.trades);
			print(
				`   the exchange fills ${resting.length} of the batch orders above (${[whole, half]
					.filter((o) => o !== undefined)
					.map((o, i) => `${o.orderId} ${i === 0 ? 'wholly' : 'half'}`)
					.join(', ')}); with the DCA buy, these fills in the last 24 hours:`,
			);
			for (const f of fills)
				print(
					`     ${f.isBuyer === true ? 'BUY ' : 'SELL'} ${String(f.qty)} ${String(f.symbol)} @ ${String(f.price)}, fee ${String(f.commission)} ${String(f.commissionAsset)}, ${f.isMaker === true ? 'maker' : 'taker'}, order ${String(f.orderId)}`,
				);
			const file = fileOf(exec, ex.csv);
			if (file)
				print(`   ${String(file.fileName)} (${String(file.fileSize)}): ${fills.length} rows`);
		},
	},

	// The trigger's "Fetch Test Event" poll on Order Filled: the newest fill above, one message, no order.
	orderFilledAlert: {
		title: 'Order filled alert',
		flow: 'Trading Service Trigger (Order Filled, polls every minute) -> Set (message); places nothing',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = FILL_ALERT_EXAMPLES.orderFilledAlert;
			const orders = sb.ledger.orders.length;
			const exec = await runExample(n8n, cookie, ex, 'order filled alert');
			for (const item of items(exec, ex.message)) print(`   ${String(item.message)}`);
			print(`   orders placed: ${sb.ledger.orders.length - orders}`);
			print(
				'   (a test poll shows the newest fill; once the workflow is published, each poll emits every new one)',
			);
		},
	},

	// The trigger's "Fetch Test Event" poll on Deposit Received: the newest successful deposit is moved
	// to the trading account; run again, the business key finds the transfer and moves nothing.
	depositReceivedTransfer: {
		title: 'Deposit received, moved to the trading account',
		flow: 'Trading Service Trigger (Deposit Received) -> Transfer Asset (custody -> trading, Client Transfer ID from the deposit)',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = DEPOSIT_EXAMPLES.depositReceivedTransfer;
			const deposit = sb.wallet.deposit({ coin: 'USDT', quantity: '125.50000000' });
			print(`   a deposit of 125.5 USDT arrives (order ${deposit.depositOrderId}, status 4)`);
			for (const attempt of ['first run', 'second run']) {
				const transfers = sb.ledger.transfers.length;
				const exec = await runExample(n8n, cookie, ex, `deposit transfer, ${attempt}`);
				const [moved] = items(exec, ex.transfer);
				print(
					`   ${attempt}: outcome ${String(moved.outcome)}${moved.alreadyPlaced ? ' (found by its Client Transfer ID)' : ''}; transfers made: ${sb.ledger.transfers.length - transfers}`,
				);
			}
		},
	},

	// Published: the exchange fills a resting BUY, the stream starts the workflow; a message, no order.
	realtimeFillAlert: {
		title: 'Real-time fill alert',
		flow: 'Real-Time Trigger (Order Filled; published) -> Set (message); places nothing',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = FILL_ALERT_EXAMPLES.realtimeFillAlert;
			const orders = sb.ledger.orders.length;
			await activateAndFill(n8n, cookie, sb, ex.id, '45100.37', (exec, order, latencyMs) => {
				assertSuccess(exec, 'real-time fill alert');
				const [message] = items(exec, ex.message);
				print(
					`   the exchange fills a resting BUY (order ${order.orderId}); the workflow starts ${latencyMs} ms later:`,
				);
				print(`   ${String(message.message)}`);
			});
			print(`   orders placed: ${sb.ledger.orders.length - orders}`);
		},
	},

	// Published, not run from the editor: the exchange fills a resting BUY, the stream starts the workflow.
	fillsTakeProfit: {
		title: 'Real-time take-profit',
		flow: 'Real-Time Trigger (Order Filled, BTCUSDT; published) -> Set (message) | If BUY -> Create (places a LIMIT SELL 2 % above, Client Order ID tp-<order ID>)',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = REALTIME_EXAMPLES.fillsTakeProfit;
			await activateAndFill(n8n, cookie, sb, ex.id, '45000.37', (exec, order, latencyMs) => {
				assertSuccess(exec, 'real-time take-profit');
				const [message] = items(exec, ex.message);
				const [takeProfit] = items(exec, ex.takeProfit);
				print(
					`   the exchange fills a resting BUY (order ${order.orderId}); the workflow starts ${latencyMs} ms later:`,
				);
				print(`   ${String(message.message)}`);
				print(
					`   take-profit ${String(takeProfit.outcome)}: SELL ${String(takeProfit.origQty)} ${String(takeProfit.symbol)} @ ${String(takeProfit.price)}, client order ID ${String(takeProfit.clientOrderId)}, ${String(takeProfit.status)}`,
				);
			});
		},
	},

	// Positions opened before yesterday's settlements (seedFutures); the rates now above 0.05 % alert.
	futuresFundingRateAlert: {
		title: 'Funding rate alert',
		flow: 'Schedule Trigger (every 15 min; run now) -> v2 Futures Get Positions -> Get Funding Rate (per position) -> Code (above 0.05 %) -> Set',
		async run({ n8n, cookie, print }) {
			const ex = FUTURES_EXAMPLES.futuresFundingRateAlert;
			const exec = await runExample(n8n, cookie, ex, 'funding rate alert');
			const positions = items(exec, ex.positions);
			const rates = items(exec, ex.rates);
			print(
				`   ${positions.length} positions; rates now: ${rates.map((r) => `${String(r.symbol)} ${String(r.rate)}`).join(', ')}`,
			);
			const alerts = exec.data?.resultData.runData[ex.message] ? items(exec, ex.message) : [];
			for (const alert of alerts) print(`   ${String(alert.message)}`);
			if (alerts.length === 0) print('   no alert: no rate above 0.05 %');
		},
	},

	// Yesterday's three settlements charged the positions seeded at 23:00 the day before.
	futuresFundingFeeReport: {
		title: 'Funding fee report',
		flow: 'Schedule Trigger (daily 00:30 UTC; run now) -> v2 Futures Get Funding Fees (yesterday, every contract, Return All) -> Code (totals) -> CSV',
		async run({ n8n, cookie, print }) {
			const ex = FUTURES_EXAMPLES.futuresFundingFeeReport;
			const exec = await runExample(n8n, cookie, ex, 'funding fee report');
			const fees = exec.data?.resultData.runData[ex.fees]
				? items(exec, ex.fees).filter((fee) => fee.fundingTime !== undefined)
				: [];
			print(
				`   ${fees.length} funding fees from yesterday 00:00 to today 00:00 UTC (both ends; the report leaves today's 00:00 one out):`,
			);
			for (const row of items(exec, ex.totals))
				print(
					`     ${String(row.date)}  ${String(row.symbol).padEnd(18)} ${String(row.settlements)} settlements  ${String(row.totalFee)} ${String(row.feeAsset)}`,
				);
			const file = fileOf(exec, ex.csv);
			if (file) print(`   ${String(file.fileName)} (${String(file.fileSize)})`);
		},
	},

	// The BTC position is ISOLATED: a buy far above the mark moves its liquidation price close.
	futuresLiquidationAlert: {
		title: 'Liquidation alert',
		flow: 'Schedule Trigger (every 5 min; run now) -> v2 Futures Get Positions -> Code (mark within 10 % of liquidation) -> Set',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = FUTURES_EXAMPLES.futuresLiquidationAlert;
			const btc = sb.futures.positions().find((p) => p.symbol === BTC_PERP);
			if (btc) {
				// avgPrice × 0.825 is the liquidation price (leverage 5): aim it at 7 % below the mark.
				const target = (Number(btc.markPrice) * 0.93) / 0.825;
				const price = (2 * target - Number(btc.avgPrice)).toFixed(1);
				sb.futures.fill({ symbol: BTC_PERP, side: 'BUY', quantity: btc.baseQty, price });
				print(
					`   the demo doubles the BTC position (${btc.baseQty} more at ${price}, far above the mark ${btc.markPrice}): its liquidation price moves up`,
				);
			}
			const exec = await runExample(n8n, cookie, ex, 'liquidation alert');
			for (const p of items(exec, ex.positions))
				print(
					`     ${String(p.symbol).padEnd(18)} ${String(p.marginType).padEnd(8)} mark ${String(p.markPrice)}, liquidation price ${String(p.liquidationPrice)}${p.liquidationPrice === '0' ? ' (cross margin: none, skipped)' : ''}`,
				);
			const alerts = exec.data?.resultData.runData[ex.message] ? items(exec, ex.message) : [];
			for (const alert of alerts) print(`   ${String(alert.message)}`);
			if (alerts.length === 0)
				print('   no alert: no position within 10 % of its liquidation price');
		},
	},
	// Published: a TradingView-style alert POSTed twice to the webhook; one order, its TP and SL.
	futuresSignalEntry: {
		title: 'Futures signal entry',
		flow: 'Webhook (POST /webhook/futures-signal; published) -> If (passphrase, buy) -> v2 Futures Create Order (MARKET BUY with TP and SL, Client Order ID signal-<id>)',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = FUTURES_TRADING_EXAMPLES.futuresSignalEntry;
			const mark = Number(
				sb.futures.positions().find((p) => p.symbol === BTC_PERP)?.markPrice ?? 50000,
			);
			const alert = {
				id: `demo-${Date.now()}`,
				passphrase: 'change-this-passphrase',
				action: 'buy',
				symbol: BTC_PERP,
				quantity: '0.01',
				takeProfit: (mark * 1.05).toFixed(1),
				stopLoss: (mark * 0.95).toFixed(1),
			};
			await n8n.activateWorkflow(cookie, ex.id);
			let execs: RestExecution[];
			try {
				for (let delivery = 1; delivery <= 2; delivery++) {
					// A published webhook registers just after activation: 404 (nothing received) until then.
					for (let attempt = 0; ; attempt++) {
						const res = await fetch(`${n8n.baseUrl}/webhook/${FUTURES_SIGNAL_PATH}`, {
							method: 'POST',
							headers: { 'Content-Type': 'application/json' },
							body: JSON.stringify(alert),
						});
						await res.text();
						if (res.status === 404 && attempt < 40) {
							await new Promise((resolve) => setTimeout(resolve, 250));
							continue;
						}
						if (res.status !== 200) throw new Error(`the webhook answered HTTP ${res.status}`);
						break;
					}
					execs = await n8n.waitForExecutions(cookie, ex.id, delivery, { timeoutMs: 60_000 });
				}
			} finally {
				await n8n.deactivateWorkflow(cookie, ex.id);
			}
			execs!.sort((a, b) => Number(a.id) - Number(b.id));
			print(`   the same alert POSTed twice: ${JSON.stringify({ ...alert, passphrase: '…' })}`);
			for (const [index, exec] of execs!.entries()) {
				assertSuccess(exec, 'futures signal entry');
				const [entry] = items(exec, ex.entry);
				print(
					`   delivery ${index + 1}: order ${String(entry.orderId)} ${String(entry.outcome)}${entry.alreadyPlaced === true ? ' (alreadyPlaced: found by its Client Order ID, nothing sent)' : ''}`,
				);
			}
			const sent = sb.ledger.requests.filter(
				(r) => r.path === '/api/v2/futures/order' && r.method === 'POST',
			).length;
			print(
				`   order requests sent to the exchange: ${sent}; take-profit ${alert.takeProfit}, stop-loss ${alert.stopLoss} (mark price)`,
			);
		},
	},

	// The scripted model sells half the BTC position (placed) and tries to buy more (refused).
	futuresReduceOnlyAgent: {
		title: 'Reduce-only agent',
		flow: `Manual Trigger -> AI Agent (scripted ${FAKE_MODEL}; tools v2 Futures Get Positions, Create Order with Guardrails Reduce Only Required, Max Order Notional 5000)`,
		async run({ n8n, cookie, sandbox: sb, model: ai, print }) {
			const ex = FUTURES_TRADING_EXAMPLES.futuresReduceOnlyAgent;
			const before = sb.futures.positions().find((p) => p.symbol === BTC_PERP)?.baseQty ?? '0';
			const exec = await runExample(n8n, cookie, ex, 'reduce-only agent');
			if (ai.errors.length > 0)
				throw new Error(`the scripted model failed: ${ai.errors[0].message}`);
			const runs = exec.data!.resultData.runData[ex.agent].length;
			const [answer] = items(exec, ex.agent, runs - 1);
			const after = sb.futures.positions().find((p) => p.symbol === BTC_PERP)?.baseQty ?? '0';
			print(
				`   asked: "${String(findNode(loadAnyExample('futuresReduceOnlyAgent'), ex.agent).parameters.text)}"`,
			);
			print(`   answer: ${String(answer.output)}`);
			print(`   BTC position: ${before} before, ${after} after`);
		},
	},

	// Last: the exchange announces a high BTC funding rate; everything is cancelled and closed.
	futuresKillSwitch: {
		title: 'Futures kill switch',
		flow: 'Schedule Trigger (every minute; run now) -> v2 Futures Get Positions -> Get Funding Rate -> Code (drawdown <= -500 USDT or rate > 0.1 %) -> Cancel Many Orders (all) -> Close Position (each)',
		async run({ n8n, cookie, sandbox: sb, print }) {
			const ex = FUTURES_TRADING_EXAMPLES.futuresKillSwitch;
			sb.futures.setFundingRates(BTC_PERP, ['0.0015']);
			const open = sb.futures
				.orders()
				.filter((o) => ['NEW', 'PARTIALLY_FILLED', 'ORDER_NEW'].includes(o.status)).length;
			print(
				`   the exchange announces a BTC funding rate of 0.15 %; ${sb.futures.positions().length} positions, ${open} open futures orders (the signal's take-profit and stop-loss among them)`,
			);
			const exec = await runExample(n8n, cookie, ex, 'futures kill switch');
			const [tripped] = exec.data?.resultData.runData[ex.check] ? items(exec, ex.check) : [];
			if (!tripped) {
				print('   not tripped');
				return;
			}
			print(`   tripped: ${(tripped.reasons as string[]).join('; ')}`);
			for (const c of items(exec, ex.cancel))
				print(
					`   cancel the ${String(c.side)} ${String(c.orderType)} orders of ${String(c.symbol)} contracts (${String(c.openBefore ?? '?')} open): ${String(c.outcome)}`,
				);
			for (const c of items(exec, ex.close))
				print(`   close ${String(c.symbol)}: ${String(c.outcome)}`);
			print(`   positions left: ${sb.futures.positions().length}`);
		},
	},
};

/** Half of a decimal quantity (its last digit rounded down), for a partial fill. */
function halfOf(quantity: string): string {
	const [int, frac = ''] = quantity.split('.');
	const scale = frac.length + 1;
	const units = BigInt(int + frac) * 5n; // x/2 = x*5/10
	const digits = units.toString().padStart(scale + 1, '0');
	const whole = digits.slice(0, -scale);
	const part = digits.slice(-scale).replace(/0+$/, '');
	return part ? `${whole}.${part}` : whole;
}

/** A printed value that is not there: the summary would show a field the item does not carry. */
const MISSING_VALUE = /\bundefined\b|\bNaN\b|\[object Object\]/;

async function main(): Promise<void> {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			process.stderr.write(`\n[demo] ${signal}: stopping n8n, the sandbox and the model\n`);
			void shutdown().then(() => process.exit(130));
		});
	}
	const editor = process.argv.includes('--editor');
	const print = (line = '') => {
		if (MISSING_VALUE.test(line))
			throw new Error(`the summary would print a missing value: ${line}`);
		out.push(line);
	};

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

	// The futures examples need positions opened before yesterday's settlements: the sandbox
	// starts with its clock at 23:00 the day before yesterday, takes them (seedFutures), then runs
	// on the real clock; the demo history is written after, relative to the real clock.
	let clockShift = futuresStartShift();
	sandbox = await startSandbox({
		port: option('--sandbox-port') ?? 0,
		host: '127.0.0.1',
		now: () => Date.now() + clockShift,
		symbolRules: 'realistic',
		market: { moving: true },
	});
	seedFutures(sandbox);
	clockShift = 0;
	sandbox.seedDemo();
	step(`sandbox listening on ${sandbox.baseUrl} with its demo history and futures positions`);
	const staleAgent = staleOrdersAgent().respond;
	const futuresAgent = reduceOnlyAgent().respond;
	model = await startFakeOpenAi({
		apiKey: DEMO_OPENAI_KEY,
		// One scripted model for both agent examples, told apart by the tools they offer.
		respond: (request) =>
			isFuturesAgentRequest(request) ? futuresAgent(request) : staleAgent(request),
	});
	step(`scripted chat model listening on ${model.baseUrl}`);

	const keys = Object.keys(DEMO_STEPS) as AnyExampleKey[];
	step(
		`n8n user folder ${path.relative(REPO_ROOT, USER_FOLDER)}/ (made afresh): npm pack + install the package, import the credentials and the ${keys.length} examples`,
	);
	await fsp.rm(USER_FOLDER, { recursive: true, force: true });
	await fsp.mkdir(USER_FOLDER, { recursive: true });
	const installed = await packAndInstallPackage(USER_FOLDER);
	const env = await createN8nEnv({ userFolder: USER_FOLDER, extra: QUIET_N8N_ENV });
	await importCredentials(env, [
		sandboxCredential(sandbox.baseUrl, DEMO_KEYS.master),
		openAiCredential(model.baseUrl, DEMO_OPENAI_KEY),
	]);
	await importWorkflow(
		env,
		(Object.keys(ALL_EXAMPLES) as AnyExampleKey[]).map((key) => loadAnyExample(key)),
	);

	const port = option('--port') ?? (editor ? 5678 : await getFreePort());
	step(`starting n8n on http://127.0.0.1:${port}`);
	n8n = await startN8n(env, { port }).catch((error: Error) => {
		throw new Error(`${error.message}\n(is port ${port} in use? choose another with --port N)`);
	});
	const cookie = await n8n.login();

	print('');
	print(`Trading Service demo: ${PACKAGE_NAME}@${installed.version} (npm pack) in n8n 2.41.1`);
	print(`  sandbox  ${sandbox.baseUrl}  (demo keys, 30 days of history)`);
	print(`  model    ${model.baseUrl}  (scripted, for the AI agent example)`);
	print(`  n8n      ${n8n.baseUrl}`);

	const seeded = seedOpenOrders(sandbox);
	const demo: Demo = { n8n, cookie, sandbox, model, seeded, print };
	for (const [index, key] of keys.entries()) {
		const demoStep = DEMO_STEPS[key];
		step(`running "${demoStep.title}" (${ALL_EXAMPLES[key].file})`);
		print('');
		print(`${`${index + 1}.`.padEnd(3)} ${demoStep.title.padEnd(20)} ${demoStep.flow}`);
		await demoStep.run(demo);
	}

	// The sandbox keeps the exchange's documented request rates (20 order, 5 query a second per key).
	const limits = sandbox.rateLimitStats();
	print('');
	print(
		`Done in ${elapsed()}: ${keys.length} examples; at the exchange's documented request rates, ${limits.rateLimited} × 429 and ${limits.intoSuspension} requests into a suspension.`,
	);
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
			`The ${keys.length} examples are under Overview (their runs under Executions); the credential`,
			`"Trading Service Sandbox" points at the sandbox on ${sandbox.baseUrl}, "OpenAI" at the scripted model.`,
			'Press Ctrl+C to stop n8n, the sandbox and the model.',
			'',
		].join('\n'),
	);
	await new Promise<never>(() => undefined); // until a signal
}

// Run only as the script (`npm run demo`): test/tools/examples.test.ts imports DEMO_STEPS.
if (require.main === module) {
	main().catch(async (error: unknown) => {
		if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
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
}
