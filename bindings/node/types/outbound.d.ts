export { buildWasiOutboundAllowlist, gateOutboundConnect, OutboundRule } from '../index';
