#!/usr/bin/env bash
# Run the steps of every examples/scenarios/*/README.md as written (the first ```sh block), so
# that they keep working from a fresh clone. make test-pipeline runs it.
#
# Each README runs in a directory of its own laid out like the repository (bin/ and its
# scenario), so that no state is left in, or taken from, the real examples. Two lines differ
# from the README: `make build` is skipped (make has built bin/), and `bin/gkesim serve ... &`
# listens on a free port (other emulators may hold 8790), with GKESIM_ENDPOINT pointing there.
# terraform-provider-google is left out: it downloads hashicorp/google from the registry.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
failed=()
for readme in "$root"/examples/scenarios/*/README.md; do
	scenario=$(basename "$(dirname "$readme")")
	[ "$scenario" = terraform-provider-google ] && continue
	work=$(mktemp -d)
	mkdir -p "$work/examples/scenarios"
	ln -s "$root/bin" "$work/bin"
	cp -r "$root/examples/scenarios/$scenario" "$work/examples/scenarios/"
	cp "$root/examples/scenarios/env.sh" "$work/examples/scenarios/"
	{
		echo 'set -euo pipefail'
		echo "export TMPDIR='$work'"
		echo 'stop() { [ -z "${serve_pid:-}" ] || { kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; } || true; }'
		echo 'trap stop EXIT'
		awk '/^```sh$/{f=1;next} /^```$/{if(f)exit} f' "$readme" | while IFS= read -r line; do
			case "$line" in
			"make build"*) ;;
			"bin/gkesim serve"*)
				flags=$(sed -n 's/^bin\/gkesim serve\([^&]*\)&.*/\1/p' <<<"$line")
				echo "bin/gkesim serve $flags --listen 127.0.0.1:0 --addr-file '$work/addr' >'$work/serve.log' 2>&1 &"
				echo 'serve_pid=$!'
				echo "export GKESIM_ENDPOINT=\$(bin/gkesim wait --addr-file '$work/addr' --pid \$serve_pid --timeout 30s)"
				;;
			'kill $!'*) echo 'stop; serve_pid='"''" ;;
			*) printf '%s\n' "$line" ;;
			esac
		done
	} >"$work/steps.sh"
	start=$SECONDS
	if (cd "$work" && TF_IN_AUTOMATION=1 bash "$work/steps.sh") >"$work/out.log" 2>&1; then
		echo "ok    examples/scenarios/$scenario/README.md ($((SECONDS - start)) s)"
	else
		echo "FAIL  examples/scenarios/$scenario/README.md; its steps printed:" >&2
		tail -n 40 "$work/out.log" >&2
		failed+=("$scenario")
	fi
	rm -rf "$work"
done
[ ${#failed[@]} -eq 0 ] || { echo "the steps of ${failed[*]} failed" >&2; exit 1; }
