/**
 * The package's node seen in n8n's editor, with playwright-core driving Debian's chromium (never a
 * downloaded browser). Used by test/e2e/editor.e2e.test.ts and tools/editor-screenshot.ts.
 *
 * Signs in through the sign-in form, opens the scheduled-transfer example and reads the Resource
 * and Operation dropdowns of its Trading Service node (resource Account), then opens the
 * batch-orders example, runs it with "Execute workflow" (against the sandbox the credential points
 * at), opens the Create Many node's panel, opens its Operation dropdown (resource Order), and
 * takes a screenshot of the panel with the dropdown open, noting which options the picture shows
 * whole. describedOptions() reads what the dropdowns should list from the node's description.
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import type { BrowserContext, Page } from 'playwright-core';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

// The operation lists come from the actions' own index modules (the node file is not imported:
// under ts-node, `TradingService.node` resolves to the codex file TradingService.node.json).
import * as account from '../../nodes/TradingService/actions/account';
import * as market from '../../nodes/TradingService/actions/market';
import * as order from '../../nodes/TradingService/actions/order';
import { EXAMPLES } from './examples';
import type { N8nInstance } from './server';

/** The node's resources by display name, each with its actions module (actions/<resource>/index.ts). */
const RESOURCES: Record<string, { description: INodeProperties[] }> = {
	Account: account,
	Market: market,
	Order: order,
};

/**
 * What the editor should show, read from the node's description: the resources and, per resource,
 * the Operation options of actions/<resource>/index.ts by display name, in their order.
 */
export function describedOptions(): { resources: string[]; operations: Record<string, string[]> } {
	const operations: Record<string, string[]> = {};
	for (const [name, module] of Object.entries(RESOURCES)) {
		const operation = module.description.find((p) => p.name === 'operation');
		operations[name] = ((operation?.options ?? []) as INodePropertyOptions[]).map(
			(option) => option.name,
		);
	}
	return { resources: Object.keys(RESOURCES), operations };
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

export interface EditorCheck {
	/** Resource dropdown of the Trading Service node. */
	resources: string[];
	/** Operation dropdown with resource Account (the scheduled-transfer example's Transfer node). */
	accountOperations: string[];
	/** Operation dropdown with resource Order (the batch-orders example's Create Many node). */
	orderOperations: string[];
	/**
	 * The Order operations whose option lies wholly inside the open dropdown's visible area and the
	 * window when the screenshot is taken: the ones the picture shows.
	 */
	orderOperationsInScreenshot: string[];
	/** Item count the Create Many node's output panel shows after "Execute workflow". */
	outputItemsText: string;
	screenshotPath: string;
}

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

async function openWorkflow(
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

async function openNodePanel(page: Page, nodeName: string): Promise<void> {
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
async function openDropdown(page: Page, parameter: string): Promise<string[]> {
	const input = page.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${parameter}"]`);
	await input.click();
	const options = dropdownOptions(page, await dropdownListId(page, parameter));
	await options.first().waitFor({ state: 'visible', timeout: 15_000 });
	await page.waitForTimeout(400); // the opening animation, for the screenshot
	return (await options.allInnerTexts()).map((text) => text.trim());
}

/**
 * Lets the open dropdown's list grow to show every option: n8n's dropdown lists scroll past about
 * five options with descriptions, which would hide the last operations from the screenshot. Each
 * element between an option and the list's root that clips or scrolls its content loses its
 * max-height (style on those elements only, for this screenshot; nothing else changes).
 */
async function expandOpenList(page: Page, parameter: string): Promise<void> {
	const listId = await dropdownListId(page, parameter);
	const first = listId
		? page.locator(`[id="${listId}"] [role="option"]`).first()
		: page.locator('.el-select-dropdown:visible [role="option"]').first();
	await first.evaluate((element) => {
		type Dom = {
			parentElement: Dom | null;
			scrollHeight: number;
			clientHeight: number;
			classList: { contains(name: string): boolean };
			style: Record<string, string>;
		};
		for (
			let parent = (element as unknown as Dom).parentElement;
			parent;
			parent = parent.parentElement
		) {
			if (parent.scrollHeight > parent.clientHeight + 1) {
				parent.style.maxHeight = 'none';
				parent.style.height = 'auto';
			}
			if (parent.classList.contains('el-select-dropdown') || parent.classList.contains('el-popper'))
				break;
		}
	});
	await page.waitForTimeout(300);
}

/**
 * The options of the open dropdown that a screenshot shows whole: each option's box inside the
 * window and inside the box of the list that scrolls (an option scrolled out of view is not shown).
 */
async function optionsInView(page: Page, parameter: string): Promise<string[]> {
	const listId = await dropdownListId(page, parameter);
	const rows = listId
		? page.locator(`[id="${listId}"] [role="option"]`)
		: page.locator('.el-select-dropdown:visible [role="option"]');
	return await rows.evaluateAll((elements, viewport) => {
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
			const headline = element.querySelector('.option-headline');
			if (inside && headline) shown.push((headline.textContent ?? '').trim());
		}
		return shown;
	}, VIEWPORT);
}

async function closeDropdown(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await page.waitForTimeout(300);
}

/** Runs the whole check and writes the screenshot to `screenshotPath` (PNG). */
export async function checkEditor(options: {
	n8n: N8nInstance;
	chromiumPath: string;
	screenshotPath: string;
	log?: (message: string) => void;
}): Promise<EditorCheck> {
	const log = options.log ?? (() => undefined);
	const { n8n } = options;
	const browser = await launchChromium(options.chromiumPath);
	try {
		const page = await browser.context.newPage();
		page.setDefaultTimeout(30_000);
		log('signing in');
		await signIn(page, n8n);

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
		await expandOpenList(page, 'operation');
		const orderOperationsInScreenshot = await optionsInView(page, 'operation');

		await fsp.mkdir(path.dirname(options.screenshotPath), { recursive: true });
		await page.screenshot({ path: options.screenshotPath });
		log(`screenshot: ${options.screenshotPath}`);
		await closeDropdown(page);
		return {
			resources,
			accountOperations,
			orderOperations,
			orderOperationsInScreenshot,
			outputItemsText,
			screenshotPath: options.screenshotPath,
		};
	} finally {
		await browser.close();
	}
}
