/** A VM's status badge lives in components/ (the dashboard's summary shows the same badges); kept here for imports. */
export { formatBootTime, StatusBadge } from '../../../components/StatusBadge.tsx';
