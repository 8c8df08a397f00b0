/** A flow type of the transaction history (spec §2.2), as the operation and trigger name it. */
export interface FlowType {
	value: number;
	specName: string;
	displayName: string;
	/** What the trigger calls a new record of this type. */
	eventName: string;
	eventDetail: string;
	/** How far back the service keeps records of this type (spec §4.1 rule 1). */
	retentionDays: 7 | 30;
	/** Whether a record's sign tells incoming from outgoing (the trigger's Direction filter). */
	hasDirection: boolean;
}

export const FLOW_TYPES: readonly FlowType[] = [
	{
		value: 1,
		specName: 'Trade',
		displayName: 'Trade',
		eventName: 'Trade',
		eventDetail: 'A trade fill: one record per coin that moved',
		retentionDays: 7,
		hasDirection: true,
	},
	{
		value: 2,
		specName: 'FEE',
		displayName: 'Fee',
		eventName: 'Trading Fee',
		eventDetail: 'A trading fee taken from the account',
		retentionDays: 7,
		hasDirection: false,
	},
	{
		value: 32,
		specName: 'Funding FEE',
		displayName: 'Funding Fee',
		eventName: 'Funding Fee Charged',
		eventDetail: 'A funding fee settled on a contract position, paid or received (see Direction)',
		retentionDays: 30,
		hasDirection: true,
	},
	{
		value: 51,
		specName: 'USER_ACCOUNT_TRANSFER',
		displayName: 'Transfer Between Accounts',
		eventName: 'Transfer Between Accounts',
		eventDetail: 'A transfer between your accounts (see Direction)',
		retentionDays: 30,
		hasDirection: true,
	},
	{
		value: 900,
		specName: 'CUSTODY_DEPOSIT',
		displayName: 'Custody Deposit',
		eventName: 'Custody Deposit',
		eventDetail: 'A deposit into the custody account',
		retentionDays: 30,
		hasDirection: false,
	},
	{
		value: 904,
		specName: 'CUSTODY_WITHDRAW',
		displayName: 'Custody Withdrawal',
		eventName: 'Custody Withdrawal',
		eventDetail: 'A withdrawal from the custody account',
		retentionDays: 30,
		hasDirection: false,
	},
	{
		value: 906,
		specName: 'FIAT_DEPOSIT',
		displayName: 'Fiat Deposit',
		eventName: 'Fiat Deposit',
		eventDetail: 'A deposit into the fiat account',
		retentionDays: 30,
		hasDirection: false,
	},
	{
		value: 910,
		specName: 'FIAT_WITHDRAW',
		displayName: 'Fiat Withdrawal',
		eventName: 'Fiat Withdrawal',
		eventDetail: 'A withdrawal from the fiat account',
		retentionDays: 30,
		hasDirection: false,
	},
];

export function findFlowType(value: number): FlowType | undefined {
	return FLOW_TYPES.find((flowType) => flowType.value === value);
}
