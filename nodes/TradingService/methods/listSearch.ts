import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { LIMITS, MARKET_SITE } from '../constants';
import { readContracts } from '../futures/contracts';
import {
	accountKind,
	accountKindName,
	accountScope,
	inScope,
	isTradingAccount,
	type AccountKind,
} from '../helpers/accountScope';
import { locatorValue } from '../helpers/validation';
import { MARKET_ENDPOINTS } from '../market/endpoints';
import { ORDER_ENDPOINTS } from '../orders/endpoints';
import { readSymbolRules } from '../orders/symbolRules';
import { DEFAULT_RETRY_POLICY, KEY_ACCOUNTS_ENDPOINT, ServiceClient } from '../transport';
import {
	lastPrices,
	orderEntryName,
	statusWords,
	symbolEntryName,
	tradableFirst,
} from './listEntries';

// The lists behind version 2's pickers (docs/operations.md "Pickers"), each filtered by what the
// user typed in the search box, case-insensitively.

/** A list in the editor does not wait a minute for a rate limit to pass: it says so at once. */
function pickerClient(functions: ILoadOptionsFunctions): ServiceClient {
	return new ServiceClient(functions, DEFAULT_RETRY_POLICY, () => 0);
}

function matches(filter: string | undefined, ...texts: unknown[]): boolean {
	if (filter === undefined || filter.trim() === '') return true;
	const wanted = filter.trim().toLowerCase();
	return texts.some((text) => typeof text === 'string' && text.toLowerCase().includes(wanted));
}

function byName(a: INodeListSearchItems, b: INodeListSearchItems): number {
	return a.name.localeCompare(b.name, 'en');
}

/** The list works without prices: a failed read (e.g. a rate limit) gives none. */
async function readLastPrices(client: ServiceClient): Promise<Map<string, string>> {
	try {
		return lastPrices(
			await client.request(MARKET_ENDPOINTS.tickerPrice, { qs: { site: MARKET_SITE } }),
		);
	} catch {
		return new Map();
	}
}

export async function searchSymbols(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = pickerClient(this);
	const prices = readLastPrices(client);
	const rules = await readSymbolRules(client);
	const lastPrice = await prices;
	const entries = [...rules.values()]
		.filter((rule) => matches(filter, rule.symbol, rule.baseAsset, rule.quoteAsset))
		.map((rule) => ({
			name: symbolEntryName(rule, lastPrice.get(rule.symbol)),
			value: rule.symbol,
			status: rule.status,
		}));
	return { results: tradableFirst(entries).map(({ name, value }) => ({ name, value })) };
}

/** Every base and quote coin of the trading pairs, so a coin the key can trade is always there. */
export async function searchCoins(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const rules = await readSymbolRules(pickerClient(this));
	const coins = new Set<string>();
	for (const rule of rules.values()) {
		if (rule.baseAsset !== '') coins.add(rule.baseAsset);
		if (rule.quoteAsset !== '') coins.add(rule.quoteAsset);
	}
	const results = [...coins]
		.filter((coin) => matches(filter, coin))
		.map((coin) => ({ name: coin, value: coin }))
		.sort(byName);
	return { results };
}

/** The kinds of account a transfer can move coins between (spec §2.3). */
const TRANSFER_KINDS: AccountKind[] = ['mainTrading', 'custody', 'subTrading'];

/** "Main Trading Account · 10001", or with its kind when the label does not say it. */
function accountEntryName(account: IDataObject): string {
	const id = String(account.accountId);
	const kind = accountKindName(accountKind(account));
	const label = typeof account.accountLabel === 'string' ? account.accountLabel.trim() : '';
	if (label === '') return `${kind} account · ${id}`;
	return label.toLowerCase().includes(kind) ? `${label} · ${id}` : `${label} (${kind}) · ${id}`;
}

async function accountEntries(
	functions: ILoadOptionsFunctions,
	filter: string | undefined,
	listed: (account: IDataObject) => boolean,
): Promise<INodeListSearchResult> {
	const accounts = (await pickerClient(functions).request(
		KEY_ACCOUNTS_ENDPOINT,
		{},
	)) as IDataObject[];
	const results = accounts
		.filter(listed)
		.map((account) => ({ name: accountEntryName(account), value: String(account.accountId) }))
		.filter((entry) => matches(filter, entry.name));
	return { results };
}

/** The key's accounts a transfer can use; Get Accounts lists the others (futures, fiat) too. */
export async function searchAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return await accountEntries(this, filter, (account) =>
		TRANSFER_KINDS.includes(accountKind(account)),
	);
}

/** The key's trading accounts: its own, and a master key's sub accounts (the Account option). */
export async function searchTradingAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return await accountEntries(this, filter, isTradingAccount);
}

/** The open orders of the account the node acts on: one page, newest first. */
export async function searchOpenOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = pickerClient(this);
	let chosen: unknown;
	try {
		chosen = locatorValue(this.getCurrentNodeParameter('options.account'));
	} catch {
		chosen = undefined; // an operation without the Account option
	}
	const scope = await accountScope(
		client,
		this.getNode(),
		typeof chosen === 'string' && /^\d{1,20}$/.test(chosen) ? chosen : undefined,
	);
	const orders = (
		(await client.request(ORDER_ENDPOINTS.openOrders, {
			qs: { accountId: scope.accountId, limit: LIMITS.ordersPageSize },
		})) as IDataObject[]
	).filter((order) => inScope(scope, order));
	const coins = await symbolCoins(client);
	const results = orders
		.filter((order) =>
			matches(filter, order.symbol, order.orderId, order.clientOrderId, order.side, order.type),
		)
		.map((order) => ({
			name: orderEntryName(order, coins.get(String(order.symbol))),
			value: String(order.orderId),
			description: `Client order ID ${String(order.clientOrderId)}, status ${String(order.status)}`,
		}));
	return { results };
}

async function symbolCoins(
	client: ServiceClient,
): Promise<Map<string, { base: string; quote: string }>> {
	const coins = new Map<string, { base: string; quote: string }>();
	try {
		for (const rule of (await readSymbolRules(client)).values()) {
			if (rule.baseAsset !== '' && rule.quoteAsset !== '')
				coins.set(rule.symbol, { base: rule.baseAsset, quote: rule.quoteAsset });
		}
	} catch {
		// The list names the symbol instead of its coins.
	}
	return coins;
}

export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const contracts = await readContracts(pickerClient(this));
	const entries = contracts
		.filter((contract) => matches(filter, contract.symbol, contract.baseAsset, contract.quoteAsset))
		.map((contract) => {
			const words = statusWords(contract.status);
			return {
				name: `${contract.symbol} (${contract.baseAsset}/${contract.quoteAsset})${words === undefined ? '' : ` · ${words}`}`,
				value: contract.symbol,
				status: contract.status,
			};
		});
	return { results: tradableFirst(entries).map(({ name, value }) => ({ name, value })) };
}
