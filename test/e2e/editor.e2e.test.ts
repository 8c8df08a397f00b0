/**
 * The node in n8n's editor: a real n8n 2.41.1 (`n8n start`) with the package installed as users
 * install it, the examples and the picker workflows (tools/n8n/fixtures/, version-2 nodes)
 * imported, driven by playwright-core with Debian's chromium.
 *
 * - Version 2's pickers: Symbol (Order › Create), From Account, To Account and Coin (Account ›
 *   Transfer Asset) and Order ID (Order › Get), each list opened in the editor and held against the
 *   sandbox's own answers (the MENA exchange information, GET /api/v1/account/type, the open orders
 *   placed here), one entry picked, and the saved workflow read back through n8n's REST API.
 * - The same pickers as expressions in By ID mode, run in the same n8n: the sandbox gets the
 *   symbol, coin, accounts and order the expressions name.
 * - The Resource and Operation dropdowns against the node's own description (both versions), and
 *   the batch-orders example run from the editor.
 * - A screenshot of the Create node with the Symbol list open, every symbol in view (to a temp
 *   dir; E2E_SCREENSHOT_PATH overrides; `npm run screenshot:editor` writes
 *   docs/editor-symbol-picker.png).
 *
 * Needs Debian's chromium (`npm run test:all` installs it when it can); without it the suite fails
 * with the command to run, unless SKIP_SUITES names `editor`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { DEMO_ACCOUNTS, DEMO_KEYS, type OrderView } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { describeE2E } from '../support/describe-e2e';
import {
	checkEditor,
	describedOptions,
	findChromium,
	loadPickerWorkflows,
	seedPickerOrders,
	CHROMIUM_CANDIDATES,
	PICKER_WORKFLOWS,
	PICKS,
	SYMBOL_SEARCH,
	VIEWPORT,
	type EditorCheck,
	type PickerCheck,
	type PickerParameter,
} from '../../tools/n8n/editor';
import { EXAMPLES, findNode, loadAllExamples, loadExample } from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { getNodeItems } from '../../tools/n8n/run-data';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';

const chromiumPath = findChromium();
const editorSkipped = (process.env.SKIP_SUITES ?? '').split(',').includes('editor');
const describeWithChromium = chromiumPath && !editorSkipped ? describeE2E : describe.skip;

// Without chromium this suite fails, saying what to install; it is skipped only when SKIP_SUITES
// names it (and test/support/noSkippedTests.js lets that skip through).
if (!chromiumPath && !editorSkipped) {
	describeE2E("the Trading Service node in n8n's editor", () => {
		it('needs chromium', () => {
			throw new Error(
				`No chromium found (${process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH}` : CHROMIUM_CANDIDATES.join(', ')}). ` +
					'Install it with `sudo apt-get install -y chromium`, or set SKIP_SUITES=editor to skip this suite.',
			);
		});
	});
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
	const header = fs.readFileSync(file).subarray(0, 24);
	expect(header.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
	return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

/** The sandbox's own answers, read over HTTP with the credential's key before the editor asks. */
interface SandboxLists {
	/** GET /api/v1/exchangeInfo?site=MENA: the symbols of the accounts' site. */
	symbols: Array<{ symbol: string; baseAsset: string; quoteAsset: string; status: string }>;
	/** GET /api/v1/account/type. */
	accounts: Array<{ accountId: string; accountLabel: string; accountType: number }>;
	/** GET /quote/v1/ticker/price?site=MENA: the last price of each symbol. */
	prices: Map<string, string>;
	/** GET /api/v1/spot/openOrders. */
	openOrders: Array<{
		orderId: string;
		symbol: string;
		side: string;
		type: string;
		price: string;
		origQty: string;
		time: string;
	}>;
}

async function readSandboxLists(client: TestClient): Promise<SandboxLists> {
	const answers = await Promise.all([
		client.call({
			method: 'GET',
			path: '/api/v1/exchangeInfo',
			query: { site: 'MENA' },
			signatureIn: 'none',
			timestamp: null,
		}),
		client.call({ method: 'GET', path: '/api/v1/account/type' }),
		client.openOrders(),
		client.call({
			method: 'GET',
			path: '/quote/v1/ticker/price',
			query: { site: 'MENA' },
			signatureIn: 'none',
			timestamp: null,
		}),
	]);
	for (const answer of answers) expect(answer.status).toBe(200);
	const [info, accounts, openOrders, prices] = answers;
	return {
		symbols: info.json.symbols,
		accounts: accounts.json,
		openOrders: openOrders.json,
		prices: new Map(
			(prices.json as Array<{ s: string; p: string }>).map((entry) => [entry.s, entry.p]),
		),
	};
}

/**
 * An account's kind as the picker must name it, from GET /api/v1/account/type: type 1 is a main
 * or a sub trading account (the label tells them apart), 3 futures, 5 custody, 6 fiat.
 */
function accountKindName(account: { accountLabel: string; accountType: number }): string {
	if (account.accountType === 1)
		return /^sub\b/i.test(account.accountLabel) ? 'sub trading' : 'main trading';
	return { 3: 'futures', 5: 'custody', 6: 'fiat' }[account.accountType] ?? 'other';
}

describeWithChromium(
	`the Trading Service node in n8n's editor (chromium${chromiumPath ? ` at ${chromiumPath}` : ': not found, skipped'})`,
	() => {
		let fx: E2eFixture;
		let n8n: N8nInstance;
		let result: EditorCheck;
		let placed: OrderView[];
		let lists: SandboxLists;
		/** Sandbox requests before the editor opened (the test's own reads among them). */
		let requestsBeforeEditor: number;
		const screenshotPath =
			process.env.E2E_SCREENSHOT_PATH ??
			path.join(
				fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-shot-')),
				'editor-symbol-picker.png',
			);

		beforeAll(async () => {
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-editor-',
				workflows: [...loadAllExamples(), ...loadPickerWorkflows()],
				// Prices stand still, so the Symbol list and the test's own read agree.
				sandbox: { market: { moving: false } },
			});
			n8n = await startN8n(fx.env);
			placed = seedPickerOrders(fx.sb);
			lists = await readSandboxLists(
				new TestClient(fx.sb.baseUrl, DEMO_KEYS.master, () => fx.sb.now()),
			);
			requestsBeforeEditor = fx.sb.ledger.requests.length;
			result = await checkEditor({
				n8n,
				chromiumPath: chromiumPath!,
				screenshotPath,
				picks: { ...PICKS, orderId: placed[1].orderId },
			});
		});

		afterAll(async () => {
			await n8n?.stop();
			if (n8n && fx) expect(leakedSecrets(n8n.logs(), fx.secrets)).toEqual([]);
			await fx?.cleanup();
		});

		const picker = (parameter: PickerParameter): PickerCheck => {
			const found = result.pickers.find((p) => p.parameter === parameter);
			if (!found) throw new Error(`no ${parameter} picker in the editor check`);
			return found;
		};

		/** Why a symbol cannot be traded now, in the words the list must use (none when it can). */
		const STATUS_WORDS: Record<string, string> = {
			HALT: 'trading halted',
			IN_PREVIEW: 'not trading yet',
		};
		/**
		 * What the symbol list must show for one symbol of the exchange information: its last price
		 * in its coins, after the words of a status that is not TRADING.
		 */
		const symbolEntry = (s: SandboxLists['symbols'][number]) => ({
			name: [
				s.symbol,
				...(s.status === 'TRADING' ? [] : [STATUS_WORDS[s.status] ?? s.status]),
				`1 ${s.baseAsset} = ${lists.prices.get(s.symbol)} ${s.quoteAsset}`,
			].join(' · '),
			value: s.symbol,
		});
		/** Those that can be traded first, each group by name. */
		const listOrder = (symbols: SandboxLists['symbols']) =>
			[...symbols]
				.sort(
					(a, b) =>
						Number(a.status !== 'TRADING') - Number(b.status !== 'TRADING') ||
						a.symbol.localeCompare(b.symbol, 'en'),
				)
				.map(symbolEntry);
		/** "2026-11-27 07:12 UTC" */
		const utc = (ms: string) =>
			`${new Date(Number(ms)).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

		// What the node's description (actions/<resource>/index.ts) declares; the editor must show it all.
		const described = describedOptions(1);
		const describedV2 = describedOptions(2);
		// The examples the editor opens, at the version they use.
		const exampleVersion = (key: 'scheduledTransfer' | 'batchOrders', node: string) =>
			(findNode(loadExample(key), node).typeVersion ?? 1) >= 2 ? 2 : 1;
		const transferExample = describedOptions(
			exampleVersion('scheduledTransfer', EXAMPLES.scheduledTransfer.transfer),
		);
		const batchExample = describedOptions(
			exampleVersion('batchOrders', EXAMPLES.batchOrders.createMany),
		);

		test('the node describes Account, Market and Order (version 2 also Futures and Wallet), with every operation (the lists the editor must show)', () => {
			expect(described.resources).toEqual(['Account', 'Market', 'Order']);
			expect(described.operations.Market).toEqual([
				'Get 24h Ticker',
				'Get Candles',
				'Get Order Book',
				'Get Price',
				'Get Recent Trades',
				'Get Symbol Rules',
			]);
			expect(described.operations.Account).toEqual([
				'Get Balances',
				'Get Transaction History',
				'Transfer Asset',
			]);
			expect(described.operations.Order).toEqual([
				'Cancel',
				'Cancel Many',
				'Create',
				'Create Many',
				'Get',
				'Get Many',
			]);
			// Version 2 adds the Futures resource (its reads and its writes) and the Wallet reads.
			expect(describedV2.resources).toEqual(['Account', 'Futures', 'Market', 'Order', 'Wallet']);
			expect(describedV2.operations.Wallet).toEqual([
				'Get Deposit Address',
				'Get Deposits',
				'Get Withdrawals',
			]);
			expect(describedV2.operations.Futures).toEqual([
				'Cancel Many Orders',
				'Cancel Order',
				'Close Position',
				'Create Many Orders',
				'Create Order',
				'Get Balance',
				'Get Commission Rate',
				'Get Funding Fees',
				'Get Funding Rate',
				'Get Funding Rate History',
				'Get Leverage',
				'Get Order',
				'Get Orders',
				'Get Positions',
				'Get Trades',
				'Set Leverage',
				'Set Position TP/SL',
			]);
			expect(describedV2.operations.Account).toEqual(
				expect.arrayContaining([...described.operations.Account, 'Get Accounts', 'Get Trades']),
			);
		});

		test("the Resource dropdown lists the resources of the node's description (the examples' version and version 2)", () => {
			expect(result.resources).toEqual(transferExample.resources);
			expect(result.v2.resources).toEqual(describedV2.resources);
		});

		test(`the Operation dropdown lists every operation of the description: Account -> ${transferExample.operations.Account.join(', ')}; Order -> ${batchExample.operations.Order.join(', ')}; version 2 Account -> ${describedV2.operations.Account.join(', ')}`, () => {
			expect(result.accountOperations).toEqual(transferExample.operations.Account);
			expect(result.orderOperations).toEqual(batchExample.operations.Order);
			expect(result.v2.accountOperations).toEqual(describedV2.operations.Account);
			expect(result.v2.orderOperations).toEqual(describedV2.operations.Order);
		});

		test('Symbol picker (version 2 Create): the MENA exchange information, each symbol with its last price in its coins; those that cannot be traded say so in words and come last; the search narrows it; ETHUSDT is picked and saved', () => {
			const expected = listOrder(lists.symbols);
			expect(expected.length).toBeGreaterThan(3);
			const symbol = picker('symbol');
			expect(symbol.results).toEqual(expected);
			expect(symbol.shown).toEqual(expected.map((e) => e.name));
			expect(expected.slice(-2).map((e) => e.name)).toEqual([
				expect.stringMatching(/^ADAUSDT · not trading yet · 1 ADA = [\d.]+ USDT$/),
				expect.stringMatching(/^XRPUSDT · trading halted · 1 XRP = [\d.]+ USDT$/),
			]);
			for (const entry of symbol.shown) expect(entry).not.toMatch(/HALT|IN_PREVIEW/);
			expect(symbol.cut).toEqual([]);

			const wanted = SYMBOL_SEARCH.toUpperCase();
			const found = listOrder(
				lists.symbols.filter((s) =>
					[s.symbol, s.baseAsset, s.quoteAsset].some((t) => t.includes(wanted)),
				),
			);
			expect(found.map((e) => e.value)).toEqual(['ETHUSDT', 'PEPEETH']);
			expect(result.symbolSearch.results).toEqual(found);
			expect(result.symbolSearch.shown).toEqual(found.map((e) => e.name));

			const eth = `ETHUSDT · 1 ETH = ${lists.prices.get('ETHUSDT')} USDT`;
			expect(symbol.picked).toBe(eth);
			expect(symbol.fieldAfterPick).toBe(eth);
			expect(result.saved[PICKER_WORKFLOWS.editor.create].symbol).toMatchObject({
				__rl: true,
				mode: 'list',
				value: 'ETHUSDT',
			});
		});

		test("From Account and To Account pickers (version 2 Transfer Asset): the key's accounts a transfer can use (main trading, custody, sub trading) of GET /api/v1/account/type, each with its kind; main trading -> sub trading picked and saved", () => {
			// The accounts a transfer can use: main trading, custody and sub trading.
			const expected = lists.accounts
				.filter((a) => ['main trading', 'custody', 'sub trading'].includes(accountKindName(a)))
				.map((a) => {
					const kind = accountKindName(a);
					const said = a.accountLabel.toLowerCase().includes(kind);
					return {
						name: said
							? `${a.accountLabel} · ${a.accountId}`
							: `${a.accountLabel} (${kind}) · ${a.accountId}`,
						value: String(a.accountId),
					};
				});
			expect(expected.map((e) => e.value)).toEqual(
				expect.arrayContaining([
					DEMO_ACCOUNTS.mainTrading,
					DEMO_ACCOUNTS.subTrading,
					DEMO_ACCOUNTS.custody,
				]),
			);
			for (const parameter of ['fromAccountId', 'toAccountId'] as const) {
				const accounts = picker(parameter);
				expect(accounts.results).toEqual(expected);
				expect(accounts.shown).toEqual(expected.map((e) => e.name));
			}
			expect(picker('fromAccountId').picked).toBe(
				`Main Trading Account · ${DEMO_ACCOUNTS.mainTrading}`,
			);
			expect(picker('toAccountId').picked).toBe(
				`Sub Main Trading Account (sub trading) · ${DEMO_ACCOUNTS.subTrading}`,
			);
			for (const p of [picker('fromAccountId'), picker('toAccountId')])
				expect(p.fieldAfterPick).toBe(p.picked);
			const saved = result.saved[PICKER_WORKFLOWS.editor.transfer];
			expect(saved.fromAccountId).toMatchObject({
				__rl: true,
				mode: 'list',
				value: PICKS.fromAccountId,
			});
			expect(saved.toAccountId).toMatchObject({
				__rl: true,
				mode: 'list',
				value: PICKS.toAccountId,
			});
		});

		test('Coin picker (version 2 Transfer Asset): every base and quote coin of the MENA symbols, once each; USDT picked and saved', () => {
			const coins = [...new Set(lists.symbols.flatMap((s) => [s.baseAsset, s.quoteAsset]))].sort(
				(a, b) => a.localeCompare(b, 'en'),
			);
			const coin = picker('coin');
			expect(coin.results).toEqual(coins.map((c) => ({ name: c, value: c })));
			expect(coin.shown).toEqual(coins);
			expect(coin.picked).toBe('USDT');
			expect(coin.fieldAfterPick).toBe('USDT');
			expect(result.saved[PICKER_WORKFLOWS.editor.transfer].coin).toMatchObject({
				__rl: true,
				mode: 'list',
				value: 'USDT',
			});
		});

		test('Order ID picker (version 2 Get): exactly the open orders placed in the sandbox, newest first, each with its time (UTC), whole ID, side, and quantity and limit price in their coins; one picked and saved by its ID', () => {
			expect(lists.openOrders.map((o) => o.orderId).sort()).toEqual(
				placed.map((o) => o.orderId).sort(),
			);
			const orders = picker('orderId');
			expect(orders.results.map((r) => r.value)).toEqual(lists.openOrders.map((o) => o.orderId));
			expect(orders.results.map((r) => r.value)).toEqual([placed[1].orderId, placed[0].orderId]);
			for (const o of lists.openOrders) {
				const entry = orders.results.find((r) => r.value === o.orderId)!;
				const coins = lists.symbols.find((s) => s.symbol === o.symbol)!;
				expect(entry.name).toBe(
					`${utc(o.time)} · ${o.orderId} · ${o.side} ${o.origQty} ${coins.baseAsset} @ ${o.price} ${coins.quoteAsset}`,
				);
			}
			expect(orders.shown).toEqual(orders.results.map((r) => r.name));
			// A narrow panel may cut the end of an entry short, never its time and whole ID.
			for (const entry of orders.cut)
				expect(entry).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC · \d{1,20} · /);
			expect(orders.picked).toBe(
				`${utc(placed[1].time)} · ${placed[1].orderId} · SELL 0.5 ETH @ 3500 USDT`,
			);
			expect(orders.fieldAfterPick).toBe(orders.picked);
			expect(result.saved[PICKER_WORKFLOWS.editor.get].orderId).toMatchObject({
				__rl: true,
				mode: 'list',
				value: placed[1].orderId,
			});
		});

		test("the lists were read through the node's transport: signed with the credential's key (accounts, open orders); exchange information and last prices of site MENA with the key alone", () => {
			const editorRequests = fx.sb.ledger.requests.slice(requestsBeforeEditor);
			const sent = (p: string) => editorRequests.filter((r) => r.path === p && r.status === 200);
			for (const p of ['/api/v1/account/type', '/api/v1/spot/openOrders']) {
				expect(sent(p).length).toBeGreaterThan(0);
				for (const r of sent(p)) {
					expect(r.apiKey).toBe(DEMO_KEYS.master.apiKey);
					expect(r.query).toMatch(/(^|&)signature=[0-9a-f]{64}$/);
				}
			}
			// Market data: the API key alone, for the MENA site; one price read per Symbol list.
			for (const p of ['/api/v1/exchangeInfo', '/quote/v1/ticker/price']) {
				expect(sent(p).length).toBeGreaterThan(0);
				for (const r of sent(p)) {
					expect(r.apiKey).toBe(DEMO_KEYS.master.apiKey);
					expect(r.query).toBe('site=MENA');
				}
			}
		});

		test('an expression in each picker (By ID) works in n8n: Symbol, Coin, From/To Account and Order ID from the items before, the sandbox gets exactly those', async () => {
			const wf = PICKER_WORKFLOWS.expressions;
			const before = {
				requests: fx.sb.ledger.requests.length,
				orders: fx.sb.ledger.orders.length,
				cancels: fx.sb.ledger.cancels.length,
				transfers: fx.sb.ledger.transfers.length,
			};
			const cookie = await n8n.login();
			const exec = await n8n.runWorkflowFromTrigger(cookie, wf.id, wf.trigger);
			expect(exec.data?.resultData.error).toBeUndefined();
			expect(exec.status).toBe('success');
			const run = { data: exec.data! };

			// Symbol: Get Price and Create.
			expect(getNodeItems(run, wf.price)).toEqual([
				{ symbol: 'ETHUSDT', price: expect.stringMatching(/^\d+(\.\d+)?$/) },
			]);
			const [created] = getNodeItems(run, wf.create);
			expect(created).toMatchObject({ outcome: 'placed', symbol: 'ETHUSDT', status: 'NEW' });
			const orderId = created.orderId as string;
			const newOrders = fx.sb.ledger.orders.slice(before.orders);
			expect(newOrders).toHaveLength(1);
			expect(newOrders[0]).toMatchObject({
				orderId,
				symbol: 'ETHUSDT',
				side: 'BUY',
				price: '2000',
				origQty: '0.01',
				via: 'single',
			});

			// Order ID: Get, then Cancel, of the order Create placed.
			expect(getNodeItems(run, wf.get)).toEqual([
				expect.objectContaining({ orderId, symbol: 'ETHUSDT', status: 'NEW' }),
			]);
			expect(getNodeItems(run, wf.cancel)).toEqual([
				expect.objectContaining({ outcome: 'placed', orderId, status: 'CANCELED' }),
			]);
			expect(fx.sb.ledger.cancels.slice(before.cancels)).toEqual([
				expect.objectContaining({ orderId, via: 'single', status: 'CANCELED' }),
			]);

			// Coin, From Account and To Account: one transfer, as the Inputs node named them.
			expect(getNodeItems(run, wf.transfer)).toEqual([
				expect.objectContaining({ outcome: 'placed' }),
			]);
			expect(fx.sb.ledger.transfers.slice(before.transfers)).toEqual([
				expect.objectContaining({
					fromAccountId: DEMO_ACCOUNTS.mainTrading,
					toAccountId: DEMO_ACCOUNTS.subTrading,
					coin: 'USDT',
					quantity: '12.5',
				}),
			]);

			// The requests name what the expressions gave.
			const requests = fx.sb.ledger.requests.slice(before.requests);
			const query = (p: string, method: string) =>
				requests
					.filter((r) => r.path === p && r.method === method)
					.map((r) => Object.fromEntries(new URLSearchParams(r.query)));
			const named = (p: string, method: string, field: string, value: string) => {
				const sent = query(p, method);
				expect(sent.length).toBeGreaterThan(0);
				for (const q of sent) expect(q[field]).toBe(value);
			};
			named('/quote/v1/ticker/price', 'GET', 'symbol', 'ETHUSDT');
			named('/api/v1/spot/order', 'GET', 'orderId', orderId);
			named('/api/v1/spot/order', 'DELETE', 'orderId', orderId);
			expect(fx.sb.getOrder(orderId)?.status).toBe('CANCELED');
		});

		test('"Execute workflow" in the editor runs the batch-orders example: 45 items out, 45 orders in the sandbox', () => {
			expect(result.outputItemsText).toMatch(/^45 items/);
			const batch = fx.sb.ledger.orders.filter((o) => o.via === 'batch');
			expect(batch).toHaveLength(45);
			expect(batch.every((o) => o.accountId === DEMO_ACCOUNTS.mainTrading)).toBe(true);
			expect(
				fx.sb.ledger.requests.filter((r) => r.path === '/api/v1.1/spot/batchOrders'),
			).toHaveLength(3);
		});

		test('the screenshot is a PNG of the whole window, taken on the version-2 Create node with the Symbol list open and every symbol in view', () => {
			expect(fs.statSync(screenshotPath).size).toBeGreaterThan(20_000);
			expect(pngSize(screenshotPath)).toEqual(VIEWPORT);
			expect(result.symbolsInScreenshot).toEqual(picker('symbol').shown);
		});
	},
);
