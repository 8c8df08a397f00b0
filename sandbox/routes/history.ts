/**
 * GET /api/v1/account/balanceFlow: a page of history records of one flow type, newest first by
 * default; behaviour `historyOrder` lists the page earliest first (the UAE documentation's rule).
 */
import { CODES } from '../codes';
import {
	ACCOUNT_TYPES,
	ACCOUNT_TYPE_VALUES,
	DEFAULT_HISTORY_LIMIT,
	FLOW_TYPES,
	MAX_HISTORY_LIMIT,
	accountsOf,
} from '../constants';
import { apiError, fieldError } from '../errors';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

export function history(
	ctx: RequestContext,
	auth: Authed,
	{ engine, behaviour, now }: Services,
): Resp {
	const p = auth.queryParams;
	const ms = (name: string): number => {
		const v = p.get(name);
		if (v === undefined || !/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
		return Number(v);
	};
	const startTime = ms('startTime');
	const endTime = ms('endTime');
	const ftRaw = p.get('flowType');
	if (ftRaw === undefined || !/^\d{1,4}$/.test(ftRaw) || !FLOW_TYPES[Number(ftRaw)]) {
		throw fieldError('flowType', `one of ${Object.keys(FLOW_TYPES).join(', ')}`);
	}
	const flowType = Number(ftRaw);
	let accountType: number | undefined;
	const atRaw = p.get('accountType');
	if (atRaw !== undefined) {
		if (!/^\d{1,2}$/.test(atRaw) || !ACCOUNT_TYPE_VALUES.includes(Number(atRaw))) {
			throw fieldError('accountType', `one of ${ACCOUNT_TYPE_VALUES.join(', ')}`);
		}
		accountType = Number(atRaw);
	}
	let limit = DEFAULT_HISTORY_LIMIT;
	const limRaw = p.get('limit');
	if (limRaw !== undefined) {
		if (!/^\d{1,4}$/.test(limRaw) || Number(limRaw) < 1 || Number(limRaw) > MAX_HISTORY_LIMIT) {
			throw fieldError('limit', `1 to ${MAX_HISTORY_LIMIT}`);
		}
		limit = Number(limRaw);
	}
	if (startTime > endTime) throw fieldError('startTime', 'startTime must not be after endTime');
	if (auth.key.kind === 'sub' && accountType === 5) {
		throw apiError(CODES.noPermission, 'custody records need a master-account API key');
	}
	const accountIds = accountsOf(auth.key).filter(
		(a) => accountType === undefined || ACCOUNT_TYPES[a] === accountType,
	);
	const fault = ctx.fault;
	// historyOversize: more records than asked for; historyOldestFirst: the page reversed;
	// historyUnordered: the first record of another time than the first moved to the front, so a
	// page of two or more times is in no order
	const extra =
		fault?.kind === 'historyOversize' ? Math.max(1, fault.rule.extraRecords ?? limit) : 0;
	// transferHistoryLagMs: transfers made within the lag are not listed yet
	const lag = flowType === 51 ? behaviour.transferHistoryLagMs : 0;
	const listedUntil = lag > 0 ? Math.min(endTime, now() - lag) : endTime;
	if (listedUntil < startTime) return json(200, []);
	const page = engine.queryHistory({
		flowType,
		accountIds,
		startTime,
		endTime: listedUntil,
		limit: limit + extra,
		order: behaviour.historyOrder,
		// The UAE documentation's filter: only records carrying this client order ID (transfers').
		clientOrderId: p.get('clientOrderId'),
	});
	const other = page.findIndex((record) => record.created !== page[0]?.created);
	if (fault?.kind === 'historyUnordered' && other > 0) page.unshift(...page.splice(other, 1));
	return json(200, fault?.kind === 'historyOldestFirst' ? page.reverse() : page);
}
