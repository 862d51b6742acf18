/**
 * @module ui/views/scores
 * (Placeholder: built by issue #13.)
 */
import { EmptyState } from "../components/empty-state.js";

/** The scores view. */
export default function Scores() {
  return <EmptyState title="Scores" hint="Coming with issue #13." />;
}
