/**
 * @module ui/views/approvals
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The approvals view. */
export default function Approvals() {
  return <EmptyState title="Approvals" hint="Coming with issue #13." />;
}
