/**
 * The package's node seen in n8n's editor, with playwright-core driving Debian's chromium (never a
 * downloaded browser). Used by test/e2e/editor.e2e.test.ts and tools/editor-screenshot.ts.
 *
 * Signs in through the sign-in form, then:
 * - opens the pickers workflow (fixtures/pickers-v2.json, version-2 nodes), reads the Resource and
 *   Operation dropdowns of its Create node, opens the Symbol picker's list (From List) and takes a
 *   screenshot with it open, noting which entries the picture shows whole; searches the list, picks
 *   a symbol; picks From Account, To Account and Coin in the Transfer Asset node and an open order
 *   in the Get node, each list read as shown and as n8n's list search answered it; saves, and reads
 *   the stored parameters back through n8n's REST API;
 * - opens the scheduled-transfer example (version 1) and reads the Resource and Operation
 *   dropdowns of its Trading Service node (resource Account);
 * - opens the batch-orders example (version 1), runs it with "Execute workflow" (against the
 *   sandbox the credential points at), opens the Create Many node's panel and reads its Operation
 *   dropdown (resource Order).
 * describedOptions() reads what the dropdowns should list from the node's description.
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import type { BrowserContext, Locator, Page } from 'playwright-core';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

// The operation lists come from the actions' own index modules (the node file is not imported:
// under ts-node, `TradingService.node` resolves to the codex file TradingService.node.json).
import * as account from '../../nodes/TradingService/account';
import { versionDescription } from '../../nodes/TradingService/actions/versionDescription';
import * as futures from '../../nodes/TradingService/futures';
import * as market from '../../nodes/TradingService/market';
import * as order from '../../nodes/TradingService/orders';
import * as wallet from '../../nodes/TradingService/wallet';
import { DEMO_ACCOUNTS, type OrderView, type Sandbox } from '../../sandbox';
import { EXAMPLES, type Workflow } from './examples';
import type { N8nInstance } from './server';

/** The node's resources by display name, each with its actions module (actions/<resource>/index.ts). */
const RESOURCES: Record<string, { description(version: 1 | 2): INodeProperties[] }> = {
	Account: account,
	Futures: futures,
	Market: market,
	Order: order,
	Wallet: wallet,
};

/**
 * What the editor should show, read from the node's description: the resources and, per resource,
 * the Operation options of actions/<resource>/index.ts by display name, in their order, as the
 * given node version shows them (the examples the editor test opens are version 1).
 */
export function describedOptions(version: 1 | 2 = 1): {
	resources: string[];
	operations: Record<string, string[]>;
} {
	// The resources the version offers (Futures is version 2's), as its description lists them.
	const base = {
		displayName: 'Trading Service',
		name: 'tradingService',
		group: [],
		description: '',
	};
	const resource = versionDescription(base, version).properties.find((p) => p.name === 'resource');
	const offered = new Set(((resource?.options ?? []) as INodePropertyOptions[]).map((o) => o.name));
	const operations: Record<string, string[]> = {};
	for (const [name, module] of Object.entries(RESOURCES)) {
		if (!offered.has(name)) continue;
		const operation = module.description(version).find((p) => p.name === 'operation');
		operations[name] = ((operation?.options ?? []) as INodePropertyOptions[]).map(
			(option) => option.name,
		);
	}
	return { resources: Object.keys(operations), operations };
}

const FIXTURES_DIR = path.resolve(__dirname, 'fixtures');

/**
 * Workflows of version-2 nodes for the editor test, beside the examples (which stay version 1).
 * `editor`: nodes whose pickers are empty (From List), for the editor to fill. `expressions`: the
 * same pickers in By ID mode, each an expression on the items before it, run end to end.
 */
export const PICKER_WORKFLOWS = {
	editor: {
		file: 'pickers-v2.json',
		id: 'tsPickersV2Edit1',
		create: 'Create Order',
		transfer: 'Transfer Asset',
		get: 'Get Order',
	},
	/** Filled-in version-2 forms, for the docs' screenshots (tools/editor-screenshot.ts). */
	screens: {
		file: 'pickers-v2-screens.json',
		id: 'tsPickersV2Screens1',
		create: 'Buy BTC',
		cancel: 'Cancel Order',
		candles: 'Get Candles',
	},
	expressions: {
		file: 'pickers-v2-expressions.json',
		id: 'tsPickersV2Expr1',
		trigger: 'Manual Trigger',
		inputs: 'Inputs',
		price: 'Get Price',
		create: 'Create Order',
		get: 'Get Order',
		cancel: 'Cancel Order',
		transfer: 'Transfer Asset',
	},
} as const;

/** Fresh copies of the picker workflows (PICKER_WORKFLOWS), to import with the examples. */
export function loadPickerWorkflows(): Workflow[] {
	return Object.values(PICKER_WORKFLOWS).map(
		(wf) => JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, wf.file), 'utf8')) as Workflow,
	);
}

/** The pickers the editor check uses, by parameter name. */
export type PickerParameter = 'symbol' | 'fromAccountId' | 'toAccountId' | 'coin' | 'orderId';

/** The value to pick in each picker. */
export type PickerChoices = Record<PickerParameter, string>;

/** What the editor check picks, but the order (an open order the caller placed: see seedPickerOrders). */
export const PICKS: Omit<PickerChoices, 'orderId'> = {
	symbol: 'ETHUSDT',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
};

/** Typed into the Symbol list's search box before ETHUSDT is picked. */
export const SYMBOL_SEARCH = 'eth';

/**
 * Two resting orders of the key the examples' credential holds (placed through the sandbox's
 * control API a minute and half a minute ago), for the Order ID picker to list.
 */
export function seedPickerOrders(sb: Sandbox): OrderView[] {
	const now = sb.now();
	return [
		sb.seedOpenOrder({
			symbol: 'BTCUSDT',
			side: 'BUY',
			price: '40000',
			quantity: '0.001',
			time: now - 60_000,
		}),
		sb.seedOpenOrder({
			symbol: 'ETHUSDT',
			side: 'SELL',
			price: '3500',
			quantity: '0.5',
			time: now - 30_000,
		}),
	];
}

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH overrides. */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function findChromium(): string | undefined {
	const fromEnv = process.env.CHROMIUM_PATH;
	if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : undefined;
	return CHROMIUM_CANDIDATES.find((candidate) => fs.existsSync(candidate));
}

export const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export const VIEWPORT = { width: 1600, height: 1000 };

/** A browser with a fresh profile directory, removed on close. */
export async function launchChromium(
	executablePath: string,
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
	// Imported here so that loading this module does not need playwright-core to be installed.
	const { chromium } = await import('playwright-core');
	const userDataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'chromium-profile-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath,
		headless: true,
		args: CHROMIUM_FLAGS,
		viewport: VIEWPORT,
		deviceScaleFactor: 1,
		timeout: 60_000,
	});
	return {
		context,
		async close() {
			await context.close().catch(() => undefined);
			await fsp.rm(userDataDir, { recursive: true, force: true });
		},
	};
}

export async function signIn(page: Page, n8n: N8nInstance): Promise<void> {
	await page.goto(`${n8n.baseUrl}/signin`);
	await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(n8n.owner.email);
	await page.locator('[data-test-id="password"] input').fill(n8n.owner.password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
}

export async function openWorkflow(
	page: Page,
	n8n: N8nInstance,
	workflowId: string,
	nodeName: string,
): Promise<void> {
	await page.goto(`${n8n.baseUrl}/workflow/${workflowId}`);
	await canvasNode(page, nodeName).waitFor({ timeout: 60_000 });
}

function canvasNode(page: Page, nodeName: string) {
	return page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
}

export async function openNodePanel(page: Page, nodeName: string): Promise<void> {
	await canvasNode(page, nodeName).dblclick();
	await page
		.locator('[data-test-id="ndv"] [data-test-id="parameter-input-operation"]')
		.waitFor({ timeout: 30_000 });
}

function dropdownOptions(page: Page, listId: string | null) {
	return listId
		? page.locator(`[id="${listId}"] [role="option"] .option-headline`)
		: page.locator('.el-select-dropdown:visible [role="option"] .option-headline');
}

async function dropdownListId(page: Page, parameter: string): Promise<string | null> {
	return await page
		.locator(
			`[data-test-id="ndv"] [data-test-id="parameter-input-${parameter}"] input[role="combobox"]`,
		)
		.getAttribute('aria-controls');
}

/** Opens a dropdown parameter of the open node panel and returns its option names, leaving it open. */
export async function openDropdown(page: Page, parameter: string): Promise<string[]> {
	const input = page.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${parameter}"]`);
	await input.click();
	const options = dropdownOptions(page, await dropdownListId(page, parameter));
	await options.first().waitFor({ state: 'visible', timeout: 15_000 });
	await page.waitForTimeout(400); // the opening animation, for the screenshot
	return (await options.allInnerTexts()).map((text) => text.trim());
}

/**
 * The texts of the rows a screenshot shows whole: each row's box inside the window and inside the
 * box of every ancestor that clips or scrolls (a row scrolled out of view is not shown). `textOf`:
 * a selector inside the row for its text (default: the row's own text).
 */
async function rowsInView(rows: Locator, textOf?: string): Promise<string[]> {
	return await rows.evaluateAll(
		(elements, { viewport, textSelector }) => {
			// Runs in the browser (this project's TypeScript has no DOM library: the few DOM calls, typed here).
			type Box = {
				top: number;
				left: number;
				bottom: number;
				right: number;
				width: number;
				height: number;
			};
			type Dom = {
				getBoundingClientRect(): Box;
				parentElement: Dom | null;
				textContent: string | null;
				querySelector(selector: string): { textContent: string | null } | null;
			};
			const win = globalThis as unknown as {
				getComputedStyle(element: Dom): { overflowX: string; overflowY: string };
			};
			const shown: string[] = [];
			for (const element of elements as unknown as Dom[]) {
				const box = element.getBoundingClientRect();
				let inside =
					box.width > 0 &&
					box.height > 0 &&
					box.top >= 0 &&
					box.left >= 0 &&
					box.bottom <= viewport.height &&
					box.right <= viewport.width;
				for (let parent = element.parentElement; parent && inside; parent = parent.parentElement) {
					const style = win.getComputedStyle(parent);
					if (!/(auto|scroll|hidden)/.test(style.overflowY + style.overflowX)) continue;
					const clip = parent.getBoundingClientRect();
					inside =
						box.top >= clip.top - 0.5 &&
						box.bottom <= clip.bottom + 0.5 &&
						box.left >= clip.left - 0.5 &&
						box.right <= clip.right + 0.5;
				}
				const text = textSelector ? element.querySelector(textSelector) : element;
				if (inside && text) shown.push((text.textContent ?? '').trim());
			}
			return shown;
		},
		{ viewport: VIEWPORT, textSelector: textOf },
	);
}

export async function closeDropdown(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await page.waitForTimeout(300);
}

/** An entry of a picker's list as n8n's list search returned it to the editor. */
export interface ListEntry {
	name: string;
	value: string;
}

/** One picker of a version-2 node, opened in the editor, read, and one entry picked from it. */
export interface PickerCheck {
	node: string;
	parameter: PickerParameter;
	/** The entries the open list shows, top to bottom. */
	shown: string[];
	/**
	 * The entries the open list cuts short (the panel too narrow for the whole name), each as the
	 * start the list shows, ending in "…".
	 */
	cut: string[];
	/**
	 * What the editor got for that list: the answer of POST
	 * /rest/dynamic-node-parameters/resource-locator-results (n8n ran the node's list search).
	 */
	results: ListEntry[];
	/** The entry picked, as the list showed it. */
	picked: string;
	/** What the picker's field shows once the entry is picked. */
	fieldAfterPick: string;
}

export interface EditorCheck {
	/** Resource dropdown of the Trading Service node (version 1: the scheduled-transfer example). */
	resources: string[];
	/** Operation dropdown with resource Account (the scheduled-transfer example's Transfer node, version 1). */
	accountOperations: string[];
	/** Operation dropdown with resource Order (the batch-orders example's Create Many node, version 1). */
	orderOperations: string[];
	/** The same dropdowns on the version-2 nodes of the pickers workflow. */
	v2: { resources: string[]; orderOperations: string[]; accountOperations: string[] };
	/** Symbol, From Account, To Account, Coin and Order ID, in that order. */
	pickers: PickerCheck[];
	/** The Symbol list after typing SYMBOL_SEARCH in its search box: what it shows, what n8n returned. */
	symbolSearch: { shown: string[]; cut: string[]; results: ListEntry[] };
	/** The Symbol entries the screenshot shows whole (the list open, before the search). */
	symbolsInScreenshot: string[];
	/**
	 * The pickers' parameters as n8n stored them once the workflow was saved (GET
	 * /rest/workflows/<id>), by node name then parameter name.
	 */
	saved: Record<string, Record<string, unknown>>;
	/** Item count the Create Many node's output panel shows after "Execute workflow". */
	outputItemsText: string;
	screenshotPath: string;
}

export function pickerLocator(page: Page, parameter: string) {
	return page.locator(`[data-test-id="ndv"] [data-test-id="resource-locator-${parameter}"]`);
}

export function pickerRows(page: Page, parameter: string) {
	return pickerLocator(page, parameter).locator('[data-test-id="rlc-item"]');
}

/**
 * Waits for the editor's list request of one picker (and, if given, search text) and returns the
 * entries n8n answered with. Start waiting before the click or keystroke that sends it.
 */
function listAnswer(page: Page, parameter: string, filter?: string): Promise<ListEntry[]> {
	return page
		.waitForResponse(
			(response) => {
				if (!response.url().endsWith('/rest/dynamic-node-parameters/resource-locator-results'))
					return false;
				const sent = response.request().postDataJSON() as { path?: string; filter?: string };
				return sent.path === `parameters.${parameter}` && (sent.filter ?? '') === (filter ?? '');
			},
			{ timeout: 30_000 },
		)
		.then(async (response) => {
			if (response.status() !== 200)
				throw new Error(
					`the ${parameter} list: HTTP ${response.status()}: ${(await response.text()).slice(0, 500)}`,
				);
			const body = (await response.json()) as { data: { results: ListEntry[] } };
			return body.data.results.map(({ name, value }) => ({ name, value: String(value) }));
		});
}

/**
 * Until the open list shows `count` rows (it renders after the answer arrives): their texts, and
 * those the list cuts short (n8n shows one line per entry and ends a longer name with "…").
 */
async function shownRows(
	page: Page,
	parameter: string,
	count: number,
): Promise<{ shown: string[]; cut: string[] }> {
	const rows = pickerRows(page, parameter);
	const deadline = Date.now() + 15_000;
	while ((await rows.count()) !== count && Date.now() < deadline) await page.waitForTimeout(100);
	const shown = (await rows.allInnerTexts()).map((text) => text.trim());
	const cut = await rows.evaluateAll((elements) => {
		// Runs in the browser (no DOM library in this project's TypeScript: the calls used, typed here).
		type Box = { left: number; right: number };
		type Text = { textContent: string | null };
		type Name = Text & {
			scrollWidth: number;
			clientWidth: number;
			firstChild: Text | null;
			getBoundingClientRect(): Box;
		};
		type Row = { querySelector(selector: string): Name | null };
		const doc = globalThis as unknown as {
			document: {
				createRange(): {
					setStart(node: Text, offset: number): void;
					setEnd(node: Text, offset: number): void;
					getBoundingClientRect(): Box;
				};
			};
		};
		const cutShort: string[] = [];
		for (const row of elements as unknown as Row[]) {
			const name = row.querySelector('div > span');
			if (!name || name.scrollWidth <= name.clientWidth + 1 || !name.firstChild) continue;
			// The longest start of the name that shows before the "…".
			const text = name.textContent ?? '';
			const room = name.getBoundingClientRect().right;
			const range = doc.document.createRange();
			let shown = 0;
			for (let end = 1; end <= text.length; end++) {
				range.setStart(name.firstChild, 0);
				range.setEnd(name.firstChild, end);
				if (range.getBoundingClientRect().right > room - 10) break;
				shown = end;
			}
			cutShort.push(`${text.slice(0, shown)}…`);
		}
		return cutShort;
	});
	return { shown, cut };
}

/** Opens a picker's list (mode From List) and returns what it shows and what n8n answered. */
export async function openPicker(
	page: Page,
	parameter: string,
): Promise<{ shown: string[]; cut: string[]; results: ListEntry[] }> {
	const answer = listAnswer(page, parameter);
	await pickerLocator(page, parameter).locator('[data-test-id="rlc-input"]').click();
	const results = await answer;
	return { ...(await shownRows(page, parameter, results.length)), results };
}

/** Types into the open list's search box; what the list then shows and what n8n answered. */
async function searchPicker(
	page: Page,
	parameter: string,
	text: string,
): Promise<{ shown: string[]; cut: string[]; results: ListEntry[] }> {
	const answer = listAnswer(page, parameter, text);
	await pickerLocator(page, parameter).locator('[data-test-id="rlc-search"]').fill(text);
	const results = await answer;
	return { ...(await shownRows(page, parameter, results.length)), results };
}

/** Clicks the open list's entry of `value`; returns its name and what the field shows after. */
async function pickEntry(
	page: Page,
	parameter: string,
	results: ListEntry[],
	value: string,
): Promise<{ picked: string; fieldAfterPick: string }> {
	const entry = results.find((candidate) => candidate.value === value);
	if (!entry)
		throw new Error(
			`the ${parameter} list has no entry ${value} (it has ${results.map((r) => r.value).join(', ')})`,
		);
	await pickerRows(page, parameter).getByText(entry.name, { exact: true }).click();
	const field = pickerLocator(page, parameter).locator('[data-test-id="rlc-input"]');
	const deadline = Date.now() + 10_000;
	while ((await field.inputValue()) === '' && Date.now() < deadline) await page.waitForTimeout(100);
	return { picked: entry.name, fieldAfterPick: await field.inputValue() };
}

/** Opens a picker, reads its list and picks the entry of `value`. */
async function checkPicker(
	page: Page,
	node: string,
	parameter: PickerParameter,
	value: string,
): Promise<PickerCheck> {
	const { shown, cut, results } = await openPicker(page, parameter);
	return {
		node,
		parameter,
		shown,
		cut,
		results,
		...(await pickEntry(page, parameter, results, value)),
	};
}

export async function closeNodePanel(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await page
		.locator('[data-test-id="ndv"] [data-test-id="parameter-input-operation"]')
		.waitFor({ state: 'hidden', timeout: 15_000 });
}

/**
 * Saves the open workflow as a user does (Ctrl+S; n8n 2.41 also saves by itself after a change)
 * and waits until n8n's REST API gives back the picked values; returns the pickers' parameters as
 * stored (whatever they are after 30 s, for the test to compare).
 */
async function saveAndReadPickers(
	page: Page,
	n8n: N8nInstance,
	picks: PickerChoices,
): Promise<Record<string, Record<string, unknown>>> {
	await page.keyboard.press('Control+s');
	const cookie = await n8n.login();
	const wf = PICKER_WORKFLOWS.editor;
	const wanted: Array<[string, PickerParameter]> = [
		[wf.create, 'symbol'],
		[wf.transfer, 'fromAccountId'],
		[wf.transfer, 'toAccountId'],
		[wf.transfer, 'coin'],
		[wf.get, 'orderId'],
	];
	const deadline = Date.now() + 30_000;
	for (;;) {
		const stored = (await n8n.getWorkflow(cookie, wf.id)) as {
			nodes: Array<{ name: string; parameters: Record<string, unknown> }>;
		};
		const saved: Record<string, Record<string, unknown>> = {};
		for (const [node, parameter] of wanted) {
			const parameters = stored.nodes.find((n) => n.name === node)?.parameters ?? {};
			saved[node] = { ...saved[node], [parameter]: parameters[parameter] };
		}
		const done = wanted.every(
			([node, parameter]) =>
				(saved[node][parameter] as { value?: unknown } | undefined)?.value === picks[parameter],
		);
		if (done || Date.now() > deadline) return saved;
		await page.waitForTimeout(250);
	}
}

/**
 * Runs the whole check and writes the screenshot to `screenshotPath` (PNG): the pickers of the
 * version-2 workflow first (the Order ID list must hold only the orders the caller placed, before
 * the batch-orders example places its own), then the version-1 examples.
 */
export async function checkEditor(options: {
	n8n: N8nInstance;
	chromiumPath: string;
	screenshotPath: string;
	/** What to pick: PICKS and the ID of an open order the caller placed. */
	picks: PickerChoices;
	log?: (message: string) => void;
}): Promise<EditorCheck> {
	const log = options.log ?? (() => undefined);
	const { n8n, picks } = options;
	const browser = await launchChromium(options.chromiumPath);
	try {
		const page = await browser.context.newPage();
		page.setDefaultTimeout(30_000);
		log('signing in');
		await signIn(page, n8n);

		const wf = PICKER_WORKFLOWS.editor;
		log(`pickers workflow (version 2): ${wf.create}, the Symbol list (screenshot)`);
		await openWorkflow(page, n8n, wf.id, wf.create);
		await openNodePanel(page, wf.create);
		const v2Resources = await openDropdown(page, 'resource');
		await closeDropdown(page);
		const v2OrderOperations = await openDropdown(page, 'operation');
		await closeDropdown(page);

		const symbols = await openPicker(page, 'symbol');
		await page.waitForTimeout(400); // the opening animation, for the screenshot
		const symbolsInScreenshot = await rowsInView(pickerRows(page, 'symbol'));
		await fsp.mkdir(path.dirname(options.screenshotPath), { recursive: true });
		await page.screenshot({ path: options.screenshotPath });
		log(`screenshot: ${options.screenshotPath}`);
		const symbolSearch = await searchPicker(page, 'symbol', SYMBOL_SEARCH);
		const symbol: PickerCheck = {
			node: wf.create,
			parameter: 'symbol',
			...symbols,
			...(await pickEntry(page, 'symbol', symbolSearch.results, picks.symbol)),
		};
		await closeNodePanel(page);

		log(`${wf.transfer}: From Account, To Account, Coin`);
		await openNodePanel(page, wf.transfer);
		const v2AccountOperations = await openDropdown(page, 'operation');
		await closeDropdown(page);
		const from = await checkPicker(page, wf.transfer, 'fromAccountId', picks.fromAccountId);
		const to = await checkPicker(page, wf.transfer, 'toAccountId', picks.toAccountId);
		const coin = await checkPicker(page, wf.transfer, 'coin', picks.coin);
		await closeNodePanel(page);

		log(`${wf.get}: Order ID`);
		await openNodePanel(page, wf.get);
		const order = await checkPicker(page, wf.get, 'orderId', picks.orderId);
		await closeNodePanel(page);
		log('saving the workflow');
		const saved = await saveAndReadPickers(page, n8n, picks);

		log('scheduled-transfer example: the Transfer node (resource Account)');
		await openWorkflow(
			page,
			n8n,
			EXAMPLES.scheduledTransfer.id,
			EXAMPLES.scheduledTransfer.transfer,
		);
		await openNodePanel(page, EXAMPLES.scheduledTransfer.transfer);
		const resources = await openDropdown(page, 'resource');
		await closeDropdown(page);
		const accountOperations = await openDropdown(page, 'operation');
		await closeDropdown(page);

		log('batch-orders example: Execute workflow, then the Create Many node (resource Order)');
		const ex = EXAMPLES.batchOrders;
		await openWorkflow(page, n8n, ex.id, ex.createMany);
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		// The canvas labels the node's output with its item count once the run is done.
		const outputLabel = page.locator(
			`[data-test-id="canvas-node-output-handle"][data-node-name="${ex.createMany}"]`,
		);
		await outputLabel.filter({ hasText: /\d+ items?/ }).waitFor({ timeout: 120_000 });
		await openNodePanel(page, ex.createMany);
		const outputItemsText = (
			await page
				.locator('[data-test-id="output-panel"] [data-test-id="ndv-items-count"]')
				.first()
				.innerText()
		).trim();
		const orderOperations = await openDropdown(page, 'operation');
		await closeDropdown(page);

		return {
			resources,
			accountOperations,
			orderOperations,
			v2: {
				resources: v2Resources,
				orderOperations: v2OrderOperations,
				accountOperations: v2AccountOperations,
			},
			pickers: [symbol, from, to, coin, order],
			symbolSearch,
			symbolsInScreenshot,
			saved,
			outputItemsText,
			screenshotPath: options.screenshotPath,
		};
	} finally {
		await browser.close();
	}
}
