import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type ITriggerFunctions,
} from 'n8n-workflow';

import { contractSymbol } from '../futures/contracts';
import { accountScope, contractAccountOf, type AccountScope } from '../helpers/accountScope';
import { inputError, integerInRange, locatorValue } from '../helpers/validation';
import type { ServiceClient } from '../transport';
import { STREAM_EVENT_KINDS, type StreamEventKind } from './events';
import { STREAM_SOCKET_PATH } from './endpoints';

export { contractAccountOf };

export const DEFAULT_OUTAGE_REPORT_MINUTES = 5;
export const MAX_OUTAGE_REPORT_MINUTES = 24 * 60;

/**
 * The real-time trigger's parameters, checked before anything is sent; the Account option and
 * Position Changed checked against the API key at activation; where the stream is.
 */
export interface StreamSettings {
	kinds: ReadonlySet<StreamEventKind>;
	/** Exact filters: order events of `symbol`, balance events of `coin`, positions of `contract`. */
	symbol?: string;
	coin?: string;
	contract?: string;
	outageReportMinutes: number;
	/** The trading account chosen in the options; undefined: the API key's own. */
	account?: string;
}

const KNOWN_KINDS: readonly string[] = STREAM_EVENT_KINDS.map((kind) => kind.value);

/** An exact-match filter as typed: empty is no filter; spaces around it are refused, not trimmed. */
function exactValue(context: ITriggerFunctions, field: string, value: unknown): string | undefined {
	const refused = (problem: string, fix: string) =>
		inputError(context.getNode(), field, problem, fix);
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string')
		throw refused(`${JSON.stringify(value)} is not text`, `Enter ${field} as text.`);
	if (value.trim() !== value)
		throw refused(
			`"${value}" starts or ends with spaces`,
			'The filter matches the exchange’s value exactly, so it would never match. Remove the spaces.',
		);
	return value;
}

/** The Contract filter: empty is every contract; else a contract symbol, checked. */
function contractValue(context: ITriggerFunctions, value: unknown): string | undefined {
	const typed = exactValue(context, 'Contract', value);
	return typed === undefined ? undefined : contractSymbol(context.getNode(), 'Contract', typed);
}

/** The Account option: empty is the key's own trading account; otherwise an account ID. */
function accountValue(context: ITriggerFunctions, value: unknown): string | undefined {
	const typed = exactValue(context, 'Account', value);
	if (typed === undefined) return undefined;
	if (!/^\d{1,20}$/.test(typed))
		throw inputError(
			context.getNode(),
			'Account',
			`"${typed}" is not an account ID`,
			'Pick the account from the list, or enter its ID (digits only), or leave it empty for the API key’s own trading account.',
		);
	return typed;
}

export function readStreamSettings(context: ITriggerFunctions): StreamSettings {
	const node = context.getNode();
	const events = context.getNodeParameter('events', []) as unknown;
	if (!Array.isArray(events) || events.length === 0)
		throw inputError(node, 'Events', 'no event is chosen', 'Pick at least one event.');
	for (const event of events)
		if (typeof event !== 'string' || !KNOWN_KINDS.includes(event))
			throw inputError(
				node,
				'Events',
				`${JSON.stringify(event)} is not an event this trigger knows`,
				`Pick events from the list: ${STREAM_EVENT_KINDS.map((kind) => kind.name).join(', ')}.`,
			);
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const outageMinutes = integerInRange(
		node,
		'Report Outage After (Minutes)',
		options.outageReportMinutes ?? DEFAULT_OUTAGE_REPORT_MINUTES,
		1,
		MAX_OUTAGE_REPORT_MINUTES,
	);
	return {
		kinds: new Set(events as StreamEventKind[]),
		symbol: exactValue(context, 'Symbol', locatorValue(filters.symbol)),
		coin: exactValue(context, 'Coin', locatorValue(filters.coin)),
		contract: contractValue(context, locatorValue(filters.contract)),
		outageReportMinutes: outageMinutes,
		account: accountValue(context, locatorValue(options.account)),
	};
}

/**
 * The account the trigger follows: a listen key carries the key's own trading account's events
 * only (docs/trigger.md, "One account"), so another one is refused, not caught up on reconnects.
 */
export async function followedAccount(
	client: ServiceClient,
	node: INode,
	chosen: string | undefined,
): Promise<AccountScope> {
	const own = await accountScope(client, node, undefined);
	if (chosen === undefined || chosen === own.accountId) return own;
	const other = await accountScope(client, node, chosen);
	throw new NodeOperationError(
		node,
		`Account ${other.accountId} cannot be followed with this API key's real-time stream`,
		{
			description: `The exchange's user data stream carries the events of the API key's own trading account (${own.accountId}) only. Leave Account empty, or use an API key of account ${other.accountId} (a sub account's own key).`,
		},
	);
}

/**
 * The futures account the futures events follow: the key's own (account type 3). A key without
 * one (a sub account's key) could never see a futures event: refused at activation.
 */
export async function followedContractAccount(client: ServiceClient, node: INode): Promise<string> {
	const found = contractAccountOf(await client.keyAccounts());
	if (found !== undefined) return found;
	throw new NodeOperationError(node, 'This API key has no futures account of its own', {
		description:
			"Position Changed, the futures order events and Liquidation follow the API key's own futures account (account type 3), and the exchange lists none for this key (a sub account's key has none), or several. Remove them from Events, or use the main account's API key.",
	});
}

/**
 * Where the user data stream is: the credential's Stream URL, or one derived from the Base URL. The
 * exchange serves REST on an "api" host and its streams on the matching "stream" host (api-pro.…
 * and stream-pro.…, api-glb.… and stream-glb.… before 2026-06-16); a host without that prefix (the
 * sandbox, a proxy) serves both.
 */
export type StreamAddress = { ok: true; url: string } | { ok: false; problem: string; fix: string };

const EXAMPLE = 'e.g. wss://stream.example.com, or leave it empty to derive it from the Base URL';

const refused = (problem: string, fix = EXAMPLE): StreamAddress => ({ ok: false, problem, fix });

const withoutTrailingSlashes = (path: string): string => path.replace(/\/+$/, '');

/** The stream host for a REST host: a leading "api" becomes "stream", anything else is kept. */
export function streamHostOf(host: string): string {
	return /^api(?=[.-])/i.test(host) ? `stream${host.slice(3)}` : host;
}

/** The stream's base address (scheme, host, path prefix), from the credential's fields. */
export function streamAddressOf(baseUrl: unknown, streamUrl: unknown): StreamAddress {
	const typed = typeof streamUrl === 'string' ? streamUrl.trim() : '';
	if (typed !== '') {
		let url: URL;
		try {
			url = new URL(typed);
		} catch {
			return refused("The credential's Stream URL is not a web address");
		}
		if (url.protocol !== 'wss:' && url.protocol !== 'ws:')
			return refused("The credential's Stream URL must start with wss:// or ws://");
		if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
			return refused(
				"The credential's Stream URL contains a user name, password, query or fragment",
				`Remove it. ${EXAMPLE}`,
			);
		return { ok: true, url: `${url.protocol}//${url.host}${withoutTrailingSlashes(url.pathname)}` };
	}
	let base: URL;
	try {
		base = new URL(String(baseUrl ?? '').trim());
	} catch {
		return refused(
			"The credential's Base URL is not a web address, so no Stream URL can be derived from it",
			'Enter the Base URL, e.g. https://api.example.com',
		);
	}
	const scheme = base.protocol === 'http:' ? 'ws:' : 'wss:';
	const host = streamHostOf(base.hostname) + (base.port === '' ? '' : `:${base.port}`);
	return { ok: true, url: `${scheme}//${host}${withoutTrailingSlashes(base.pathname)}` };
}

export function socketUrlOf(streamBase: string, listenKey: string): string {
	return `${streamBase}${STREAM_SOCKET_PATH}${encodeURIComponent(listenKey)}`;
}
