#!/usr/bin/env bash
# t693: bad packings from DEM codes. LAMMPS dumps, CSV tables and VTK particle files with missing
# columns or arrays, NaN, a truncated snapshot, a missing timestep, duplicate atom ids, scaled
# coordinates without a box, compressed files and layouts that are none of the forms: each gives
# one line on stderr naming the file, the line and what was expected, a non-zero exit, and no
# output file. Then the flags: --scale and --timestep with bad values, --timestep on a table.
set -u
HEXPACK=${HEXPACK:-./build/hexpack}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
expect_fail() {
  local want=$1; shift
  rm -f out.*
  "$HEXPACK" "$@" > /dev/null 2> err.txt
  local rc=$?
  local lines; lines=$(wc -l < err.txt)
  if [ "$rc" -eq 0 ]; then echo "FAIL (exit 0): hexpack $*"; fail=1; return; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL ($lines lines on stderr): hexpack $*"; cat err.txt; fail=1; return; fi
  if ! grep -qF -- "$want" err.txt; then echo "FAIL (message): hexpack $*"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; fail=1; return; fi
  if ls out.* > /dev/null 2>&1; then echo "FAIL (output left): hexpack $*"; fail=1; return; fi
  echo "ok   exit $rc  hexpack $*  ->  $(cat err.txt)"
}
head='ITEM: TIMESTEP
100
ITEM: NUMBER OF ATOMS
3
ITEM: BOX BOUNDS pp pp ff
-4 4
-4 4
0 8'
rows='1 1 0 0 1 1
2 1 2.5 0 1 1
3 1 0 2.5 1 1'
printf '%s\nITEM: ATOMS id type vx vy vz radius\n%s\n' "$head" "$rows" > nocoord.dump
printf '%s\nITEM: ATOMS id type x y z\n%s\n' "$head" "1 1 0 0 1
2 1 2.5 0 1
3 1 0 2.5 1" > norad.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "1 1 0 0 1 1
2 1 nan 0 1 1
3 1 0 2.5 1 1" > nan.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "1 1 0 0 1 1
2 1 2.5 0 1 1" > short.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "1 1 0 0 1 1
2 1 2.5 0 1
3 1 0 2.5 1 1" > fewcols.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "1 1 0 0 1 1
2 1 2.5 0 1 1
2 1 0 2.5 1 1" > dupid.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "1 1 0 0 1 1
2 1 2.5 0 1 -1
3 1 0 2.5 1 1" > negrad.dump
printf 'ITEM: TIMESTEP\n100\nITEM: NUMBER OF ATOMS\n3\nITEM: ATOMS id type xs ys zs radius\n%s\n' "1 1 0.5 0.5 0.2 1
2 1 0.8 0.5 0.2 1
3 1 0.5 0.8 0.2 1" > nobox.dump
printf '%s\nITEM: ATOMS id type x y z radius\n%s\n' "$head" "$rows" > good.dump
printf 'ITEM: TIMESTEP\nten\n' > badstep.dump
printf 'ITEM: TIMESTEP\n100\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp ff\n-4 4\n-4\n0 8\n' > badbox.dump
printf 'ITEM: TIMESTEP\n100\nsomething else\n' > noitem.dump
expect_fail "nocoord.dump:9: ITEM: ATOMS names no coordinates: expected columns x y z (or xu yu zu, xs ys zs, xsu ysu zsu), found 'id type vx vy vz radius'" pebble --fast nocoord.dump -o out.re2
expect_fail "norad.dump:9: ITEM: ATOMS has no radius or diameter column and no --radius was given" pebble --fast norad.dump -o out.re2
expect_fail "nan.dump:11: column 'x' is not a finite number (NaN or infinity)" pebble --fast nan.dump -o out.re2
expect_fail "short.dump:11: timestep 100 ends after 2 of its 3 atoms (ITEM: ATOMS on line 9): expected an atom line" pebble --fast short.dump -o out.re2
expect_fail "fewcols.dump:11: an atom line with 5 value(s); ITEM: ATOMS (line 9) names 6 columns" pebble --fast fewcols.dump -o out.re2
expect_fail "dupid.dump:12: atom id 2 is also on line 11 of the snapshot: expected distinct ids" pebble --fast dupid.dump -o out.re2
expect_fail "negrad.dump:11: the radius must be positive, found -1" pebble --fast negrad.dump -o out.re2
expect_fail "nobox.dump:5: scaled coordinates (xs ys zs) need the snapshot's ITEM: BOX BOUNDS before ITEM: ATOMS" pebble --fast nobox.dump -o out.re2
expect_fail "good.dump: no snapshot with TIMESTEP 7 (flag --timestep); the file holds 1: 100" pebble --fast good.dump --timestep 7 -o out.re2
expect_fail "badstep.dump:2: expected the timestep number after ITEM: TIMESTEP (line 1), found 'ten'" pebble --fast badstep.dump -o out.re2
expect_fail "badbox.dump:7: expected 'lo hi' (ITEM: BOX BOUNDS, line 5), found 1 value(s)" pebble --fast badbox.dump -o out.re2
expect_fail "noitem.dump:3: expected an 'ITEM:' line of a LAMMPS dump, found 'something else'" pebble --fast noitem.dump -o out.re2

# CSV
printf 'x,y,r\n0,0,1\n2.5,0,1\n' > noz.csv
printf 'x,y,z,r\n0,0,1,1\n2.5,0,1,NaN\n' > nan.csv
printf 'x,y,z,r\n0,0,1,1\n2.5,0,1\n' > fields.csv
printf 'x,y,z,r\n0,0,1,1\n2.5,zero,1,1\n' > word.csv
printf 'x;y;z\n0;0;1\n2,5;0;1\n' > norad.csv
printf 'id,x,y,z,diameter\n1,0,0,1,2\n2,2.5,0,1,0\n' > zerod.csv
printf 'hello world\n1 2 3\n' > unknown.txt
expect_fail "noz.csv:1: the header names no 'z' column: expected x, y, z and r, radius or diameter; found 'x, y, r'" pebble --fast noz.csv -o out.re2
expect_fail "nan.csv:3: column 'r' is not a finite number (NaN or infinity)" pebble --fast nan.csv -o out.re2
expect_fail "fields.csv:3: a row with 3 field(s); the header (line 1) names 4 columns" pebble --fast fields.csv -o out.re2
expect_fail "word.csv:3: column 'y': expected a number, found 'zero'" pebble --fast word.csv -o out.re2
expect_fail "norad.csv:1: the header names no radius or diameter column (r, radius, d, diameter) and no --radius was given" pebble --fast norad.csv -o out.re2
expect_fail "zerod.csv:3: the diameter must be positive, found 0" pebble --fast zerod.csv -o out.re2
expect_fail "unknown.txt:1: unknown layout: expected lines of 'x y z [r]', a CSV header naming x, y, z columns, a LAMMPS dump or a VTK file; found 'hello, world'" pebble --fast unknown.txt -o out.re2

# VTK
cat > norad.vtu <<'EOF'
<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian">
  <UnstructuredGrid>
    <Piece NumberOfPoints="2" NumberOfCells="0">
      <PointData>
        <DataArray type="Int32" Name="id" format="ascii">1 2</DataArray>
        <DataArray type="Float64" Name="v" NumberOfComponents="3" format="ascii">0 0 0 0 0 0</DataArray>
      </PointData>
      <Points>
        <DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 1 2.5 0 1</DataArray>
      </Points>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
EOF
sed -e 's/Name="id"/Name="radius"/' -e 's/0 0 1 2.5 0 1/0 0 1 nan 0 1/' -e 's/format="ascii">1 2/format="ascii">1 1/' norad.vtu > nan.vtu
sed -e 's/Name="id"/Name="diameter"/' -e 's/format="ascii">1 2/format="ascii">2 -2/' norad.vtu > negd.vtu
printf '<?xml version="1.0"?>\n<VTKFile type="ImageData" version="1.0">\n<ImageData WholeExtent="0 1 0 1 0 1"></ImageData>\n</VTKFile>\n' > image.vti
printf '<?xml version="1.0"?>\n<particles>\n<p x="0"/>\n</particles>\n' > other.xml
printf '# vtk DataFile Version 3.0\nvolume\nASCII\nDATASET STRUCTURED_POINTS\nDIMENSIONS 2 2 2\n' > grid.vtk
printf '# vtk DataFile Version 3.0\nbed\nASCII\nDATASET POLYDATA\nPOINTS 2 double\n0 0 1\n2.5 inf 1\nPOINT_DATA 2\nSCALARS radius double 1\nLOOKUP_TABLE default\n1\n1\n' > inf.vtk
printf '# vtk DataFile Version 3.0\nbed\nASCII\nDATASET POLYDATA\nPOINTS 2 double\n0 0 1\n2.5 0 1\nPOINT_DATA 2\nSCALARS radius double 1\nLOOKUP_TABLE default\n1\n' > shortarr.vtk
expect_fail "norad.vtu: no point-data array named radius, radii, diameter (or r, d) and no --radius was given; arrays found: 'id, v'" pebble --fast norad.vtu -o out.re2
expect_fail "nan.vtu:10: point 2 of the points is not finite (NaN or infinity)" pebble --fast nan.vtu -o out.re2
expect_fail "negd.vtu:6: point-data array 'diameter': value 2 is -2; expected a positive diameter" pebble --fast negd.vtu -o out.re2
expect_fail "image.vti:2: VTK XML type 'ImageData' holds no particles; expected UnstructuredGrid or PolyData" pebble --fast image.vti -o out.re2
expect_fail "other.xml: unknown layout: an XML file without a <VTKFile> tag" pebble --fast other.xml -o out.re2
expect_fail "grid.vtk:4: unknown layout: expected 'DATASET POLYDATA' or 'DATASET UNSTRUCTURED_GRID' (particles as points), found 'DATASET STRUCTURED_POINTS'" pebble --fast grid.vtk -o out.re2
expect_fail "inf.vtk:7: POINTS: value 5 is not a finite number (NaN or infinity)" pebble --fast inf.vtk -o out.re2
expect_fail "shortarr.vtk:12: radius ends after 1 of its 2 values" pebble --fast shortarr.vtk -o out.re2

# compressed, flags
gzip -c good.dump > good.dump.gz
printf '0 0 1 1\n2.5 0 1 1\n' > table.txt
expect_fail "good.dump.gz: gzip-compressed; expected a packing file (gunzip it first)" pebble --fast good.dump.gz -o out.re2
expect_fail "flag --timestep: only for LAMMPS / LIGGGHTS dump files; 'table.txt' is a table of 'x y z [r]'" pebble --fast table.txt --timestep 5 -o out.re2
expect_fail "flag --timestep: only for LAMMPS / LIGGGHTS dump files; 'noz.csv' is a csv file" pebble --fast noz.csv --timestep 5 -o out.re2
expect_fail "flag --timestep: expected a timestep number, first or last, got 'latest'" pebble --fast good.dump --timestep latest -o out.re2
expect_fail "flag --scale" pebble --fast good.dump --scale 0 -o out.re2
expect_fail "flag --scale" pebble --fast good.dump --scale nan -o out.re2
# good runs of the same files: the bad ones above differ from them in one thing only
"$HEXPACK" pebble --fast good.dump --container box --order 1 -o out.re2 > /dev/null 2> err.txt || { echo "FAIL: good.dump: $(cat err.txt)"; fail=1; }
"$HEXPACK" pebble --fast norad.dump --radius 1 --container box --order 1 -o out.re2 > /dev/null 2> err.txt || { echo "FAIL: norad.dump --radius 1: $(cat err.txt)"; fail=1; }
exit $fail
