import { appHandlers } from '@/server/runtime/handlers';

// /api/recorder/* – how the desktop recorder delivers meetings (D16)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = (request: Request) => appHandlers().recorder(request);
export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
