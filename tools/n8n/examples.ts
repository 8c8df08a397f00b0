/**
 * The example workflows in `examples/` and what the e2e tests, the demo and the editor screenshot
 * need around them: the sandbox credential they reference, their node names, and variants made
 * from them in code (a Manual Trigger in place of the Schedule Trigger for `n8n execute`, another
 * credential, a different poll schedule). The examples themselves are the only hand-written copies.
 */
import * as fs from 'fs';
import * as path from 'path';

import type { N8nCredential } from './cli';

export const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'examples');

/** The credential every example references (`credentials.tradingServiceApi`). */
export const SANDBOX_CREDENTIAL = { id: 'sandbox-cred', name: 'Trading Service Sandbox' } as const;
export const CREDENTIAL_TYPE = 'tradingServiceApi';

/** Node types of the package as n8n registers them when installed in `.n8n/nodes`. */
export const NODE_TYPES = {
	action: 'n8n-nodes-trading-service.tradingService',
	trigger: 'n8n-nodes-trading-service.tradingServiceTrigger',
	/** The real-time trigger (the exchange's user data stream). */
	realTimeTrigger: 'n8n-nodes-trading-service.tradingServiceRealTimeTrigger',
	/** The action node as an AI agent tool (`usableAsTool`: n8n adds `<nodeName>Tool`). */
	tool: 'n8n-nodes-trading-service.tradingServiceTool',
} as const;

/** File name, workflow id and node names of each example. */
export const EXAMPLES = {
	fundingFeeAlert: {
		file: 'funding-fee-alert.json',
		id: 'tsFundingAlert01',
		trigger: 'Funding Fee Charged',
		message: 'Alert Message',
	},
	scheduledTransfer: {
		file: 'scheduled-transfer.json',
		id: 'tsSchedTransfer1',
		trigger: 'Every Day at 09:00',
		transfer: 'Transfer 25 USDT to Sub Account',
		check: 'Check Transfer in History',
	},
	batchOrders: {
		file: 'batch-orders.json',
		id: 'tsBatchOrders001',
		trigger: 'Manual Trigger',
		list: 'Order List',
		createMany: 'Create Many Orders',
	},
	historyExport: {
		file: 'history-export.json',
		id: 'tsHistoryExport1',
		trigger: 'Manual Trigger',
		history: 'Get Funding Fees (29 Days)',
		csv: 'CSV File',
	},
} as const;

export type ExampleKey = keyof typeof EXAMPLES;

/**
 * The order examples, run by test/e2e/order-examples.e2e.test.ts. Kept apart from EXAMPLES, which
 * the demo and the queue-mode suite run one by one with the sandbox credential only: the agent
 * also needs a chat model (OPENAI_CREDENTIAL), and stale orders need seeding first.
 */
export const ORDER_EXAMPLES = {
	cancelStaleOrders: {
		file: 'cancel-stale-orders.json',
		id: 'tsCancelStale001',
		trigger: 'Every Hour',
		list: 'Get Open Orders',
		filter: 'Older Than 24 Hours',
		cancel: 'Cancel Order',
	},
	agentOpenOrders: {
		file: 'agent-open-orders.json',
		id: 'tsAgentOrders001',
		trigger: 'Manual Trigger',
		agent: 'AI Agent',
		model: 'OpenAI Chat Model',
		listTool: 'Get Open Orders',
		cancelTool: 'Cancel Order',
	},
} as const;

export type OrderExampleKey = keyof typeof ORDER_EXAMPLES;

/**
 * The market-data examples, run by test/e2e/market-examples.e2e.test.ts and by the demo. Kept
 * apart from EXAMPLES (run by the queue-mode suite with its own checks).
 */
export const MARKET_EXAMPLES = {
	dcaMarketBuy: {
		file: 'dca-market-buy.json',
		id: 'tsDcaMarketBuy01',
		trigger: 'Every Day at 08:00',
		price: 'Get BTC Price',
		buy: 'Market Buy BTC',
		summary: 'DCA Summary',
	},
	priceAlert: {
		file: 'price-alert.json',
		id: 'tsPriceAlert0001',
		trigger: 'Every 15 Minutes',
		ticker: 'Get 24h Ticker',
		check: 'Down More Than 3%',
		message: 'Alert Message',
	},
} as const;

export type MarketExampleKey = keyof typeof MARKET_EXAMPLES;

/** A fresh copy of a market example (MARKET_EXAMPLES) as stored in `examples/`. */
export function loadMarketExample(key: MarketExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, MARKET_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/**
 * The fills export (Account › Get Trades, a version-2 operation), run by
 * test/e2e/fills-example.e2e.test.ts (in a started n8n, with the fill alerts) and by the demo. Every example uses the newest version of
 * each node of this package (test/tools/examples.test.ts holds them to it).
 */
export const V2_EXAMPLES = {
	fillsExport: {
		file: 'fills-export.json',
		id: 'tsFillsExport001',
		trigger: 'Manual Trigger',
		trades: 'Get BTCUSDT Fills (24 Hours)',
		csv: 'CSV File',
	},
} as const;

export type V2ExampleKey = keyof typeof V2_EXAMPLES;

/**
 * The examples started by the real-time trigger, run by test/e2e/realtime.e2e.test.ts with the
 * workflow active (it starts only when published: no Manual Trigger variant can stand in for it).
 * The take-profit places orders (its file name says so); the alert-only one is in FILL_ALERT_EXAMPLES.
 */
export const REALTIME_EXAMPLES = {
	fillsTakeProfit: {
		file: 'fills-place-take-profit.json',
		id: 'tsFillsTakeProf1',
		trigger: 'Order Filled',
		message: 'Fill Message',
		bought: 'Bought?',
		takeProfit: 'Take Profit 2% Above',
	},
} as const;

export type RealTimeExampleKey = keyof typeof REALTIME_EXAMPLES;

/** A fresh copy of a real-time example (REALTIME_EXAMPLES) as stored in `examples/`. */
export function loadRealTimeExample(key: RealTimeExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, REALTIME_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/**
 * The alert-only fill examples: a message per fill, no order placed. Run by the demo and by
 * test/e2e/fills-example.e2e.test.ts in the n8n it starts for the fills export (the polling
 * trigger's test poll; the real-time trigger published).
 */
export const FILL_ALERT_EXAMPLES = {
	orderFilledAlert: {
		file: 'order-filled-alert.json',
		id: 'tsOrderFillAlrt1',
		trigger: 'Order Filled',
		message: 'Fill Message',
	},
	realtimeFillAlert: {
		file: 'realtime-fill-alert.json',
		id: 'tsRealTimeFillA1',
		trigger: 'Order Filled',
		message: 'Fill Message',
	},
} as const;

export type FillAlertExampleKey = keyof typeof FILL_ALERT_EXAMPLES;

/** A fresh copy of a fill-alert example (FILL_ALERT_EXAMPLES) as stored in `examples/`. */
export function loadFillAlertExample(key: FillAlertExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, FILL_ALERT_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/** A fresh copy of a version-2 example (V2_EXAMPLES) as stored in `examples/`. */
export function loadV2Example(key: V2ExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, V2_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/**
 * The futures examples (node version 2, resource Futures), run by
 * test/e2e/futures-examples.e2e.test.ts and by the demo, against positions and funding the sandbox
 * is given first (sb.futures).
 */
export const FUTURES_EXAMPLES = {
	futuresFundingRateAlert: {
		file: 'futures-funding-rate-alert.json',
		id: 'tsFutFundRate001',
		trigger: 'Every 15 Minutes',
		positions: 'Get Positions',
		rates: 'Get Funding Rate',
		check: 'Rate Above 0.05%',
		message: 'Alert Message',
	},
	futuresFundingFeeReport: {
		file: 'futures-funding-fee-report.json',
		id: 'tsFutFeeReport01',
		trigger: 'Every Day at 00:30',
		fees: "Get Yesterday's Funding Fees",
		totals: 'Totals per Symbol',
		csv: 'CSV File',
	},
	futuresLiquidationAlert: {
		file: 'futures-liquidation-alert.json',
		id: 'tsFutLiquidAlrt1',
		trigger: 'Every 5 Minutes',
		positions: 'Get Positions',
		check: 'Within 10% of Liquidation',
		message: 'Alert Message',
	},
} as const;

export type FuturesExampleKey = keyof typeof FUTURES_EXAMPLES;

/** A fresh copy of a futures example (FUTURES_EXAMPLES) as stored in `examples/`. */
export function loadFuturesExample(key: FuturesExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, FUTURES_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/**
 * The futures trading examples (node version 2, Futures writes), run by
 * test/e2e/futures-trading.e2e.test.ts and by the demo in a started n8n: the signal entry is
 * started by its webhook (published), the kill switch and the agent from their triggers.
 */
export const FUTURES_TRADING_EXAMPLES = {
	futuresSignalEntry: {
		file: 'futures-signal-entry.json',
		id: 'tsFutSignalEnt01',
		trigger: 'Signal Webhook',
		check: 'Valid Buy Signal?',
		entry: 'Long Entry with TP/SL',
	},
	futuresKillSwitch: {
		file: 'futures-kill-switch.json',
		id: 'tsFutKillSwitch1',
		trigger: 'Every Minute',
		positions: 'Get Positions',
		rates: 'Get Funding Rate',
		check: 'Drawdown or Funding Too High',
		cancel: 'Cancel All Open Orders',
		toClose: 'Positions to Close',
		close: 'Close Position',
	},
	futuresReduceOnlyAgent: {
		file: 'futures-reduce-only-agent.json',
		id: 'tsFutReduceAgnt1',
		trigger: 'Manual Trigger',
		agent: 'AI Agent',
		model: 'OpenAI Chat Model',
		positionsTool: 'Get Positions',
		orderTool: 'Place Futures Order',
	},
} as const;

export type FuturesTradingExampleKey = keyof typeof FUTURES_TRADING_EXAMPLES;

/** The signal entry's webhook path (`/webhook/<path>` once published). */
export const FUTURES_SIGNAL_PATH = 'futures-signal';

/** A fresh copy of a futures trading example (FUTURES_TRADING_EXAMPLES) as stored in `examples/`. */
export function loadFuturesTradingExample(key: FuturesTradingExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, FUTURES_TRADING_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/**
 * The wallet example (node version 2): Deposit Received → Transfer Asset with a business key from
 * the deposit order ID, run by test/e2e/deposits.e2e.test.ts and by the demo.
 */
export const DEPOSIT_EXAMPLES = {
	depositReceivedTransfer: {
		file: 'deposit-received-transfer.json',
		id: 'tsDepositTrnsfr1',
		trigger: 'Deposit Received',
		transfer: 'Move Deposit to Trading Account',
	},
} as const;

/**
 * Every example in `examples/`, whatever its group: the one list the demo runs (tools/demo.ts has a
 * step per key, its type says so) and test/tools/examples.test.ts holds against the folder, so an
 * example added to the folder and not here, or here and not to the demo, fails a fast test.
 */
export const ALL_EXAMPLES = {
	...EXAMPLES,
	...MARKET_EXAMPLES,
	...ORDER_EXAMPLES,
	...V2_EXAMPLES,
	...REALTIME_EXAMPLES,
	...FILL_ALERT_EXAMPLES,
	...FUTURES_EXAMPLES,
	...FUTURES_TRADING_EXAMPLES,
	...DEPOSIT_EXAMPLES,
} as const;

export type AnyExampleKey = keyof typeof ALL_EXAMPLES;

/**
 * The e2e test file that runs each example in a real n8n (test/tools/examples.test.ts checks that
 * the file exists and names the example).
 */
export const EXAMPLE_E2E_TESTS: { readonly [K in AnyExampleKey]: string } = {
	fundingFeeAlert: 'test/e2e/trigger.e2e.test.ts',
	scheduledTransfer: 'test/e2e/examples.e2e.test.ts',
	batchOrders: 'test/e2e/examples.e2e.test.ts',
	historyExport: 'test/e2e/examples.e2e.test.ts',
	dcaMarketBuy: 'test/e2e/market-examples.e2e.test.ts',
	priceAlert: 'test/e2e/market-examples.e2e.test.ts',
	cancelStaleOrders: 'test/e2e/order-examples.e2e.test.ts',
	agentOpenOrders: 'test/e2e/order-examples.e2e.test.ts',
	fillsExport: 'test/e2e/fills-example.e2e.test.ts',
	fillsTakeProfit: 'test/e2e/realtime.e2e.test.ts',
	orderFilledAlert: 'test/e2e/fills-example.e2e.test.ts',
	realtimeFillAlert: 'test/e2e/fills-example.e2e.test.ts',
	futuresFundingRateAlert: 'test/e2e/futures-examples.e2e.test.ts',
	futuresFundingFeeReport: 'test/e2e/futures-examples.e2e.test.ts',
	futuresLiquidationAlert: 'test/e2e/futures-examples.e2e.test.ts',
	futuresSignalEntry: 'test/e2e/futures-trading.e2e.test.ts',
	futuresKillSwitch: 'test/e2e/futures-trading.e2e.test.ts',
	futuresReduceOnlyAgent: 'test/e2e/futures-trading.e2e.test.ts',
	depositReceivedTransfer: 'test/e2e/deposits.e2e.test.ts',
};

/** A fresh copy of any example (ALL_EXAMPLES) as stored in `examples/`. */
export function loadAnyExample(key: AnyExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, ALL_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/** The file names of every workflow in `examples/` (`*.json`), sorted. */
export function exampleFilesInFolder(): string[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.sort();
}

/** The OpenAI credential the agent example's chat model references (`credentials.openAiApi`). */
export const OPENAI_CREDENTIAL = { id: 'openai-cred', name: 'OpenAI' } as const;

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface WorkflowConnection {
	node: string;
	type: string;
	index: number;
}

export interface Workflow {
	id: string;
	name: string;
	active: boolean;
	nodes: WorkflowNode[];
	connections: Record<string, Record<string, WorkflowConnection[][]>>;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

/** A fresh (deep) copy of an example workflow as stored in `examples/`. */
export function loadExample(key: ExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/** A fresh copy of an order example (ORDER_EXAMPLES) as stored in `examples/`. */
export function loadOrderExample(key: OrderExampleKey): Workflow {
	return JSON.parse(
		fs.readFileSync(path.join(EXAMPLES_DIR, ORDER_EXAMPLES[key].file), 'utf8'),
	) as Workflow;
}

/** An `openAiApi` credential as the agent example references it, with its Base URL (e.g. a local fake). */
export function openAiCredential(baseUrl: string, apiKey: string): N8nCredential {
	return { ...OPENAI_CREDENTIAL, type: 'openAiApi', data: { apiKey, url: baseUrl, header: false } };
}

export function loadAllExamples(): Workflow[] {
	return (Object.keys(EXAMPLES) as ExampleKey[]).map(loadExample);
}

export function findNode(workflow: Workflow, name: string): WorkflowNode {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node)
		throw new Error(
			`workflow ${workflow.id} has no node "${name}" (has: ${workflow.nodes.map((n) => n.name).join(', ')})`,
		);
	return node;
}

/** Rename a node, and every connection from or to it. */
export function renameNode(workflow: Workflow, from: string, to: string): void {
	findNode(workflow, from).name = to;
	const connections: Workflow['connections'] = {};
	for (const [source, outputs] of Object.entries(workflow.connections)) {
		for (const targets of Object.values(outputs)) {
			for (const list of targets) for (const c of list) if (c.node === from) c.node = to;
		}
		connections[source === from ? to : source] = outputs;
	}
	workflow.connections = connections;
}

/**
 * A variant of `workflow` that starts with a Manual Trigger (named "Manual Trigger") in place of
 * `triggerName` (e.g. the Schedule Trigger), so that `n8n execute` can run it. Same nodes and
 * connections otherwise; a new id/name so that it can sit beside the original.
 */
export function withManualTrigger(workflow: Workflow, triggerName: string, id: string): Workflow {
	const variant = JSON.parse(JSON.stringify(workflow)) as Workflow;
	const trigger = findNode(variant, triggerName);
	renameNode(variant, triggerName, 'Manual Trigger');
	Object.assign(trigger, { type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} });
	variant.id = id;
	variant.name = `${workflow.name} (manual start)`;
	return variant;
}

/** A variant whose Trading Service nodes all use another credential. */
export function withCredential(
	workflow: Workflow,
	credential: { id: string; name: string },
	id: string,
): Workflow {
	const variant = JSON.parse(JSON.stringify(workflow)) as Workflow;
	for (const node of variant.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = { ...credential };
	}
	variant.id = id;
	variant.name = `${workflow.name} (${credential.name})`;
	return variant;
}

/** The credential the examples reference, pointing at a sandbox (by default with its master key). */
export function sandboxCredential(
	baseUrl: string,
	key: { apiKey: string; secret: string },
	options: { id?: string; name?: string; secretKey?: string } = {},
): N8nCredential {
	return {
		id: options.id ?? SANDBOX_CREDENTIAL.id,
		name: options.name ?? SANDBOX_CREDENTIAL.name,
		type: CREDENTIAL_TYPE,
		data: {
			apiKey: key.apiKey,
			secretKey: options.secretKey ?? key.secret,
			baseUrl,
			recvWindow: 5000,
			weightBudget: 0,
			weightWindowSeconds: 60,
		},
	};
}
