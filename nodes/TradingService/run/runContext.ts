import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type NodeParameterValueType,
} from 'n8n-workflow';

import { LIMITS } from '../constants';
import type { NodeVersion } from '../descriptions/pickers';
import { accountScope, type AccountScope } from '../helpers/accountScope';
import { resolveFromItem } from '../helpers/itemReference';
import { inputError, locatorValue, symbol as checkSymbol } from '../helpers/validation';
import { DEFAULT_RETRY_POLICY, KEY_ACCOUNTS_ENDPOINT, ServiceClient } from '../transport';

/** A parameter's stored value by its path ("options.stpMode" reads inside the Options collection). */
function storedValue(parameters: INode['parameters'], path: string): unknown {
	let value: unknown = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

/** Whether a parameter's stored value holds an expression anywhere (n8n marks them with a leading "="). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * What one run of the node reads once, not once per item, built by the router and handed to every
 * operation: the node, the service client (which reads the credential once), parameters without
 * expressions, the options, the trading account. A write asks the write engine for the run's
 * write side (writes/writeSession.ts), so reads never load it.
 *
 * n8n hands every item of a run the same execute functions, and new ones to each run and each Retry
 * On Fail try, so a run context lives exactly one run (try). Everything it holds is read or made
 * synchronously, or is a promise shared by all (the credential), so items of one run may be in
 * flight at once.
 */
export class RunContext {
	readonly node: INode;
	readonly client: ServiceClient;
	readonly continueOnFail: boolean;
	/** The node's version (1: typed IDs; 2: pickers, see v2/TradingServiceV2.ts). */
	readonly version: NodeVersion;
	/** Parameters without any expression: the same for every item, so read once. */
	private readonly fixed = new Map<string, unknown>();
	private checkedOptions?: unknown;
	private inputItems?: INodeExecutionData[];
	/** When this run (try) started: a retry's lookups wait out the receive window from here. */
	readonly startedAt = Date.now();

	constructor(readonly functions: IExecuteFunctions) {
		this.node = functions.getNode();
		this.version = this.node.typeVersion >= 2 ? 2 : 1;
		// Version 1 has no Wait After a Rate Limit (it always waits): its errors never suggest it.
		this.client = new ServiceClient(
			functions,
			DEFAULT_RETRY_POLICY,
			() => rateLimitWaitMs(this),
			this.version >= 2,
		);
		this.continueOnFail = functions.continueOnFail();
	}

	/**
	 * A parameter of one item. One without an expression (a fixed value, or left at its default) has
	 * the same value for every item, so it is read once per run; one with an expression is evaluated
	 * for the item, as n8n would. A picker gives the value it holds (the symbol, the ID), whichever
	 * way it was chosen, so operations read pickers and plain fields alike. `name` may be a path into
	 * a collection ("options.stpMode").
	 */
	parameter(name: string, itemIndex: number, fallback?: unknown): unknown {
		if (this.fixed.has(name)) return this.fixed.get(name);
		const stored = storedValue(this.node.parameters, name);
		const read = () =>
			locatorValue(
				this.functions.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType),
			);
		if (!holdsExpression(stored)) {
			const value = read();
			this.fixed.set(name, value);
			return value;
		}
		// Plain references to the item (`={{ $json.price }}`) are read from it, where that gives
		// exactly what n8n's expression engine would (helpers/itemReference.ts).
		const json = (this.inputItems ??= this.functions.getInputData())[itemIndex]?.json;
		const direct = json === undefined ? undefined : resolveFromItem(stored, json);
		return direct !== undefined ? locatorValue(direct) : read();
	}

	/** Whether a parameter holds an expression, i.e. may differ from item to item. */
	varies(name: string): boolean {
		return holdsExpression(storedValue(this.node.parameters, name));
	}

	/**
	 * The Options collection of one item, checked by `check` before anything is sent: checked once
	 * per run unless an option is an expression.
	 */
	options<T>(itemIndex: number, check: (options: IDataObject) => T): T {
		if (this.checkedOptions !== undefined) return this.checkedOptions as T;
		const checked = check(this.parameter('options', itemIndex, {}) as IDataObject);
		if (!this.varies('options')) this.checkedOptions = checked;
		return checked;
	}

	/** What `shared` has started in this run, by key. */
	private readonly sharedWork = new Map<string, Promise<unknown>>();

	/**
	 * One promise per key for the whole run: the first item to ask starts `make`, every other item
	 * (in any lane) awaits that same promise, its answer or its error. For a read whose answer
	 * serves many items (Market › Get Price: one all-symbols request for every item). It lives one
	 * run (try), like the context, so a Retry On Fail try reads afresh.
	 */
	shared<T>(key: string, make: () => Promise<T>): Promise<T> {
		let work = this.sharedWork.get(key) as Promise<T> | undefined;
		if (work === undefined) {
			work = make();
			this.sharedWork.set(key, work);
		}
		return work;
	}

	/** The key's accounts read afresh, once for the whole run (not the process-wide cache). */
	keyAccounts(itemIndex: number): Promise<IDataObject[]> {
		return this.shared('key accounts', async () => {
			const accounts = await this.client.request(KEY_ACCOUNTS_ENDPOINT, { itemIndex });
			return accounts as IDataObject[];
		});
	}

	/**
	 * The trading account this item's order requests act on (helpers/accountScope.ts): the one the
	 * Account option names where the operation has it, else the API key's own trading account.
	 */
	account(itemIndex: number): Promise<AccountScope> {
		const raw = this.parameter('options.account', itemIndex, '');
		const chosen = raw === undefined || raw === null ? '' : String(raw).trim();
		if (chosen !== '' && !/^\d{1,20}$/.test(chosen))
			return Promise.reject(
				new NodeOperationError(this.node, `Account "${chosen}" is not an account ID`, {
					description:
						'An account ID is a number of up to 20 digits. Pick the account from the list in the Account option, or leave it empty for the API key’s own trading account.',
					itemIndex,
				}),
			);
		return this.shared(`account ${chosen}`, () =>
			accountScope(this.client, this.node, chosen, itemIndex),
		);
	}
}

function optionError(run: RunContext, field: string, value: unknown, problem: string, fix: string) {
	const given = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? 'nothing');
	return inputError(run.node, field, `${given} ${problem}`, `${fix} Nothing was sent.`, 0);
}

/**
 * The Wait After a Rate Limit option, as the longest wait for a suspension it allows:
 * LIMITS.maxRateLimitWaitMs when on (the default, and always in version 1), 0 when off. It decides
 * whether writes are sent a minute later, so only true or false is accepted. Read from the first item.
 */
export function rateLimitWaitMs(run: RunContext): number {
	if (run.version < 2) return LIMITS.maxRateLimitWaitMs;
	const value = run.parameter('options.waitAfterRateLimit', 0, true);
	if (value === true) return LIMITS.maxRateLimitWaitMs;
	if (value === false) return 0;
	throw optionError(
		run,
		'Wait After a Rate Limit',
		value,
		'is not true or false',
		'Turn the option on or off, or give an expression that results in the boolean true or false.',
	);
}

/**
 * The Parallel Requests option: how many requests the run keeps in flight at once. Read from the
 * first item (like the HTTP Request node's batching); version 1 sends one after the other.
 */
export function parallelRequests(run: RunContext): number {
	if (run.version < 2) return 1;
	const value = run.parameter('options.parallelRequests', 0, LIMITS.defaultParallelRequests);
	const most = LIMITS.maxParallelRequests;
	if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= most)
		return value;
	throw optionError(
		run,
		'Parallel Requests',
		value,
		`is not a whole number from 1 to ${most}`,
		`Enter a whole number from 1 (one request after the other) to ${most}, or remove the option to keep ${LIMITS.defaultParallelRequests} requests in flight.`,
	);
}

/** The Symbol of an operation that reads one trading pair or all (market data, Get Many, Get Trades): empty means all. */
export function optionalSymbol(run: RunContext, itemIndex: number): string | undefined {
	const value = run.parameter('symbol', itemIndex, '');
	if (value === '' || value === undefined || value === null) return undefined;
	return checkSymbol(run.node, 'Symbol', value, itemIndex);
}

/** The Symbol of an operation that reads one trading pair: required. */
export function requiredSymbol(run: RunContext, itemIndex: number): string {
	const symbol = optionalSymbol(run, itemIndex);
	if (symbol !== undefined) return symbol;
	throw inputError(
		run.node,
		'Symbol',
		'is empty',
		'Enter a trading pair in upper case without separator, e.g. BTCUSDT.',
		itemIndex,
	);
}
