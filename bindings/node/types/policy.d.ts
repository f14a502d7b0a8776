export { resolvePermissionPolicy, isResolvedPermissionPolicy, PermissionPolicy, ResolvedPermissionPolicy, PolicyInput } from '../index';
