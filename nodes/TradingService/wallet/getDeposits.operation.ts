import type { IDataObject } from 'n8n-workflow';

import type { RunContext } from '../run/runContext';
import { WALLET_ENDPOINTS } from './endpoints';
import { executeList, listDescription, type WalletList } from './walletList';
import { DEPOSIT_STATUSES } from './walletPages';

/** Get Deposits: the deposit history (GET /api/v1/account/depositOrders), master key only. */
export const DEPOSITS: WalletList = {
	operation: 'getDeposits',
	noun: 'deposit',
	endpoint: WALLET_ENDPOINTS.deposits,
	idField: 'depositOrderId',
	statuses: DEPOSIT_STATUSES,
};

export const description = () => listDescription(DEPOSITS);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return await executeList(run, DEPOSITS, itemIndex);
}
